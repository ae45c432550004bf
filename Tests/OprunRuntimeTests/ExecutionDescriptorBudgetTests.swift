import OprunCore
import Testing

@testable import OprunRuntime

/// How many jobs the open-file limit lets run at once: their commands' descriptors and their
/// locks' between runs.
@Suite struct ExecutionDescriptorBudgetTests {
  /// Ten jobs of one command each on a queue of ten slots, each with outputs or not.
  private func graph(outputs: Bool) -> JobGraph {
    let jobs = (0..<10).map { "  j\($0): {command: run\($0)\(outputs ? ", outputs: [out\($0)]" : "")}" }
    let text = "max-concurrent: 10\njobs:\n" + jobs.joined(separator: "\n")
    return try! ManifestLoader.graph(from: SourceText(path: "/work/jobs.yaml", text: text), defaultMaxConcurrent: 4)
      .get()
  }

  @Test func jobsWithOutputsFitTheirLocksInTheLimitToo() {
    // Room for ten commands and the locks' spare, not for ten locks more.
    let budget = DescriptorBudget(
      limit: DescriptorBudget.reserve + LockTable.spare + 10 * DescriptorBudget.perCommand, open: 0)
    let (same, none) = budget.fitting(graph(outputs: false))
    #expect(none == nil && same.queues[0].maxConcurrent == 10, "without outputs, all ten fit")
    let (fitted, warning) = budget.fitting(graph(outputs: true))
    #expect(warning != nil)
    let slots = fitted.queues[0].maxConcurrent
    #expect(slots < 10 && slots * (DescriptorBudget.perCommand + 1) <= 10 * DescriptorBudget.perCommand)
  }
}
