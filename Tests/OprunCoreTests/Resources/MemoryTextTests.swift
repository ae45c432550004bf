import OprunCore
import Testing

/// Sizes as people read them: powers of 1024, one decimal below ten of a unit.
@Suite struct MemoryTextTests {
  @Test(arguments: [
    (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KB"), (812 << 10, "812 KB"), (100 << 20, "100 MB"),
    (1_181_116_006, "1.1 GB"), (5_583_457_484, "5.2 GB"), (2 << 30, "2.0 GB"), ((1 << 30) - 1, "1.0 GB"),
    (1536 << 20, "1.5 GB"), (-5, "0 B"), (Int.max, "8192 PB"),
  ])
  func amountsReadInTheLargestUnitBelow1024(bytes: Int, text: String) {
    #expect(MemoryText.text(bytes: bytes) == text)
  }

  @Test func usageOfTwoMeasurementsAddsCPUAndKeepsTheLargerPeak() {
    let first = ResourceUsage(cpuSeconds: 1.5, peakMemory: 100, source: .cgroup)
    let second = ResourceUsage(cpuSeconds: 0.25, peakMemory: 300, source: .cgroup)
    #expect(first.combined(with: second) == ResourceUsage(cpuSeconds: 1.75, peakMemory: 300, source: .cgroup))
    let mixed = first.combined(with: ResourceUsage(cpuSeconds: 0, peakMemory: 50, source: .process))
    #expect(mixed.source == .process && mixed.peakMemory == 100)
    #expect(ResourceUsage?.none.combined(with: first) == first)
  }
}
