import OprunCore

extension JSONObjectWriter {
  /// `cpu_s` (to the millisecond), `peak_memory` (bytes) and `memory_source`, as the event
  /// stream and the journal both write what a job used (SPEC §12).
  mutating func fields(of usage: ResourceUsage) {
    field("cpu_s", usage.cpuSeconds, fractionDigits: 3)
    field("peak_memory", usage.peakMemory)
    field("memory_source", usage.source.rawValue)
  }
}
