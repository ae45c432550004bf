import OprunCore
import Testing

@testable import OprunRuntime

/// What setting a run up begins before the run asks for it.
@Suite struct RunPlanPreparingTests {
  /// Under `--resume`, as in each `--watch` cycle, a job whose files decide is checked all
  /// the same: its files are walked while the journals are read and the run is set up.
  @Test func aResumedRunBeginsWalkingTheFirstJobsFiles() throws {
    let tree = try FileTree()
    tree.write("src/a.c", "a")
    tree.write(
      "jobs.yaml", "jobs:\n  build:\n    command: cat src/a.c > out.txt\n    inputs: [src/]\n    outputs: [out.txt]\n")
    var configuration = RunConfiguration(manifestPath: tree.path("jobs.yaml"))
    configuration.resume = true
    guard case .success(let prepared) = RunPlan.prepare(configuration) else {
      Issue.record("the manifest does not load")
      return
    }
    let graph = prepared.plan.graph
    let hasher = try #require(prepared.hasher)
    let begun = hasher.claimPrefetched(.inputs(of: graph.jobs[0], in: graph))
    #expect(begun?.value.files.map(\.path) == ["src/a.c"])
  }
}
