import OprunCore
import Testing

@testable import OprunRuntime

/// The plan `-n` prints (SPEC §4); under `--schedule critical-path`, with each job's weight
/// and remaining path (SPEC §5).
@Suite struct ReportingPlanTextTests {
  static let manifest = """
    max-concurrent: 1
    jobs:
      short: {command: 'true'}
      head: {command: 'true'}
      tail: {command: 'true', dependencies: [head]}
    """

  @Test func underCriticalPathEachStepShowsItsWeightAndRemainingPath() {
    let graph = ReportingGraphTests.graph(Self.manifest)
    let criticalPath = CriticalPath(graph: graph, durations: [nil, 0.25, 2.5])
    #expect(
      PlanText.render(graph.plan(criticalPath: criticalPath), of: graph, criticalPath: criticalPath) == """
        plan: 3 jobs in the order a serial run starts them, longest remaining path first
          1. head   weight 0.25s, path 2.75s; no dependencies; priority normal; manifest order #2
          2. tail   weight 2.5s, path 2.5s; waits for head; priority normal; manifest order #3
          3. short  weight 1s (unknown), path 1s; no dependencies; priority normal; manifest order #1

        """)
  }

  @Test func withoutASchedulePlanStepsShowNoWeights() {
    let graph = ReportingGraphTests.graph(Self.manifest)
    let text = PlanText.render(graph.plan(), of: graph)
    #expect(text.hasPrefix("plan: 3 jobs in the order a serial run starts them\n  1. short  no dependencies"))
    #expect(!text.contains("weight"))
  }
}
