import Foundation
import Testing

/// `oprun [switches] MANIFEST [JOB...]` is read without the argument parser (start-up); the
/// same words after `run` always go through it. Both roads must give the same run.
@Suite struct PlainRunTests {
  static let manifest = """
    max-concurrent: 1
    jobs:
      a: {command: echo from a}
      b: {command: echo from b, dependencies: [a]}
      c: {command: 'echo from c; exit 3'}
      d: {command: echo from d, dependencies: [c]}
    """

  @Test(arguments: [
    [], ["jobs.yaml"], ["-q", "jobs.yaml"], ["jobs.yaml", "b"], ["-v", "jobs.yaml", "b"],
    ["jobs.yaml", "--quiet", "b", "a"], ["-k", "jobs.yaml"], ["--keep-going", "jobs.yaml"],
    ["--fail-fast", "jobs.yaml"], ["-n", "jobs.yaml"], ["--dry-run", "jobs.yaml", "d"],
    ["-r", "jobs.yaml"], ["--resume", "--no-journal", "jobs.yaml"], ["--verbose", "jobs.yaml", "a"],
    ["missing.yaml"], ["jobs.yaml", "nosuchjob"],
    // Left to the parser either way: its errors must not change.
    ["-q", "-v", "jobs.yaml"], ["-k", "--fail-fast", "jobs.yaml"], ["-q", "-q", "jobs.yaml"],
  ])
  func theWordsGiveTheSameRunAsAfterRun(_ arguments: [String]) throws {
    let plain = try twoRuns(arguments)
    let parsed = try twoRuns(["run"] + arguments)
    #expect(plain == parsed)
  }

  /// Each run's status, standard output and standard error, times blanked; twice in one
  /// folder, so that the second run reads the first one's journal (`--resume`).
  private func twoRuns(_ arguments: [String]) throws -> [String] {
    let folder = try Scratch()
    try folder.manifest(Self.manifest)
    return try (1...2).flatMap { _ in
      let run = try runOprun(arguments, in: folder)
      return ["\(run.status)", Self.blankingTimes(run.stdout), Self.blankingTimes(run.stderr)]
    }
  }

  /// Numbers (times, pids, run ids) blanked, and the slowest jobs, which timing orders, left out.
  private static func blankingTimes(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("── slowest:") }
      .joined(separator: "\n")
      .replacing(/[0-9]+/, with: "N")
  }
}
