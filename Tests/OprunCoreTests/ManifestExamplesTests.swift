import Foundation
import OprunCore
import Testing

/// The manifests shipped in `jobs/`: the demo is valid, the broken one fails in every way it claims.
@Suite struct ManifestExamplesTests {
  private static let jobsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("jobs")

  @Test func theDemoIsAValidGraphOfElevenJobsInTwoQueues() throws {
    let path = Self.jobsDirectory.appendingPathComponent("demo.yaml").path
    let graph = try ManifestCheck.load(path: path, defaultMaxConcurrent: 2).get()
    #expect(graph.jobs.count == 11)
    #expect(graph.queues.map(\.name) == ["demo", "io"])
    #expect(graph.jobs.allSatisfy { $0.cwd == Self.jobsDirectory.path })
    #expect(graph.jobs.contains { $0.completion != nil })
    #expect(graph.jobs.contains { $0.commands.count > 1 })
  }

  @Test func theBrokenManifestReportsEachOfItsProblems() throws {
    let path = Self.jobsDirectory.appendingPathComponent("broken.yaml").path
    guard case .failure(let errors) = ManifestCheck.load(path: path, defaultMaxConcurrent: 2) else {
      Issue.record("broken.yaml was accepted")
      return
    }
    let messages = errors.diagnostics.map(\.message)
    #expect(messages.count == 12)
    #expect(messages.contains("dependency cycle: build -> lint -> build"))
    #expect(messages.contains("unknown dependency 'biuld' of job 'test' (did you mean 'build'?)"))
    #expect(messages.contains("duplicate job 'test' (first defined at line 17, column 3)"))
  }
}
