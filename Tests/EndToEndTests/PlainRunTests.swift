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
    ["-j1", "-q", "jobs.yaml"], ["--max-concurrent", "1", "jobs.yaml", "b"],
    // Left to the parser either way: its errors must not change.
    ["-q", "-v", "jobs.yaml"], ["-k", "--fail-fast", "jobs.yaml"], ["-q", "-q", "jobs.yaml"],
    ["-j", "0", "jobs.yaml"], ["-j", "-1"], ["-jx"], ["-j"], ["-j", "1", "--max-concurrent", "1"], ["--cache"],
    ["--cache", "-q", "jobs.yaml"], ["--cache="], ["--no-cache", "--cache", "store"], ["--no-cache", "--cache-read-only"],
    ["--quiet=yes"], ["--cache", "check"],
  ])
  func theWordsGiveTheSameRunAsAfterRun(_ arguments: [String]) throws {
    let plain = try twoRuns(arguments)
    let parsed = try twoRuns(["run"] + arguments)
    #expect(plain == parsed)
  }

  /// `p` finishes only once `q` has run beside it (-j 2), and both are cached: each option
  /// read by the plain road shows, in one run storing and one restoring after the outputs
  /// and `.oprun` are gone.
  static let cachedPair = """
    max-concurrent: 1
    jobs:
      p: {command: 'for i in $(seq 1000); do [ -e q.mark ] && break; sleep 0.01; done; test -e q.mark && echo p > p.out', outputs: [p.out]}
      q: {command: 'touch q.mark', outputs: [q.mark]}
    """

  @Test(arguments: [
    ["-j", "2"], ["-j2", "-q"], ["--max-concurrent", "2", "jobs.yaml", "q", "p"], ["--max-concurrent=2", "-v"],
    ["-j", "2", "--cache", "store"], ["--cache=store", "-j2", "jobs.yaml"],
    ["-j", "2", "--cache", "store", "--cache-read-only"], ["-j", "2", "--no-cache", "jobs.yaml"],
  ])
  func theOptionsWithAValueGiveTheSameRunAsAfterRun(_ arguments: [String]) throws {
    let plain = try storeThenRestore(arguments)
    let parsed = try storeThenRestore(["run"] + arguments)
    #expect(plain == parsed)
  }

  /// Both runs' status and lines, times blanked and the lines sorted (restores finish in
  /// any order). `OPRUN_CACHE` names a cache that only `--cache` or `--no-cache` replaces, and
  /// that is gone before the second run: only a cache `--cache` named restores.
  private func storeThenRestore(_ arguments: [String]) throws -> [String] {
    let folder = try Scratch()
    try folder.manifest(Self.cachedPair)
    let environment = ["OPRUN_CACHE": folder.path("env-cache")]
    return try (1...2).flatMap { round in
      if round == 2 {
        for made in ["p.out", "q.mark", ".oprun", "env-cache"] { try? FileManager.default.removeItem(atPath: folder.path(made)) }
      }
      let run = try runOprun(arguments, in: folder, environment: environment)
      let lines = Self.blankingTimes(run.stdout + run.stderr).split(separator: "\n").map(String.init).sorted()
      return ["\(run.status)"] + lines
    }
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
