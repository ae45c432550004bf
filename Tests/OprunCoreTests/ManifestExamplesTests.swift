import Foundation
import OprunCore
import Testing

/// The manifests shipped in `jobs/`: the demo is valid, the broken one fails in every way it claims.
@Suite struct ManifestExamplesTests {
  private static let jobsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("jobs")

  /// The manifest `name` in `jobs/`, named by its full path as `oprun check` would name it.
  private func source(_ name: String) throws -> SourceText {
    let url = Self.jobsDirectory.appendingPathComponent(name)
    return SourceText(path: url.path, bytes: Array(try Data(contentsOf: url)))
  }

  @Test func theDemoIsAValidGraphOfElevenJobsInTwoQueues() throws {
    let graph = try ManifestLoader.graph(from: source("demo.yaml"), defaultMaxConcurrent: 2).get()
    #expect(graph.jobs.count == 11)
    #expect(graph.queues.map(\.name) == ["demo", "io"])
    #expect(graph.jobs.allSatisfy { $0.cwd == Self.jobsDirectory.path })
    #expect(graph.jobs.contains { $0.completion != nil })
    #expect(graph.jobs.contains { $0.commands.count > 1 })
  }

  @Test func everyExampleButTheBrokenOneIsValid() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.jobsDirectory.path)
      .filter { $0.hasSuffix(".yaml") && $0 != "broken.yaml" }
    #expect(names.count >= 14)
    for name in names {
      let result = ManifestLoader.graph(from: try source(name), defaultMaxConcurrent: 2)
      if case .failure(let errors) = result { Issue.record("\(name): \(errors.diagnostics.map(\.description))") }
    }
  }

  @Test func theBrokenManifestReportsEachOfItsProblems() throws {
    let result = ManifestLoader.graph(from: try source("broken.yaml"), defaultMaxConcurrent: 2)
    guard case .failure(let errors) = result else {
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
