import Foundation
import Testing

/// Which seeds run: `OPRUN_TORTURE_SEED` alone, else `OPRUN_TORTURE_SEEDS` of them from
/// `OPRUN_TORTURE_FIRST_SEED` (default: a quick few from 1, for `make test`).
enum TortureSeeds {
  static let quickCount = 3

  static var all: [UInt64] {
    let environment = ProcessInfo.processInfo.environment
    if let seed = environment["OPRUN_TORTURE_SEED"].flatMap(UInt64.init) { return [seed] }
    let first = environment["OPRUN_TORTURE_FIRST_SEED"].flatMap(UInt64.init) ?? 1
    let count = environment["OPRUN_TORTURE_SEEDS"].flatMap(UInt64.init) ?? UInt64(quickCount)
    return Array(first..<(first + count))
  }

  /// When set, every seed's verdict is appended here as one line, for a campaign's tally.
  static let verdictLog = ProcessInfo.processInfo.environment["OPRUN_TORTURE_LOG"]

  /// When set, the folder of a seed that breaks an invariant (manifest, events, oprun's
  /// output) is copied to `KEEP/seed-N` before it is removed.
  static let keptFolders = ProcessInfo.processInfo.environment["OPRUN_TORTURE_KEEP"]
}

@Suite("Torture: random job graphs, signals at random moments")
struct TortureTests {
  /// A seeded random graph of a few hundred jobs that succeed, fail, die by a signal, time out,
  /// retry, print a lot or nothing, leave a grandchild writing to their pipe or ignore SIGTERM,
  /// under a random -j, output mode and failure policy, with SIGINT, SIGTERM, SIGUSR1 twice or
  /// SIGKILL sent to oprun after a random transition: every SPEC invariant holds
  /// (TortureInvariants) and nothing of the run is left afterwards.
  @Test(.serialized, arguments: TortureSeeds.all)
  func randomRunKeepsEveryInvariant(seed: UInt64) throws {
    let started = Date()
    let scenario = TortureScenario(seed: seed)
    let run = try TortureRun(scenario)
    let violations = TortureInvariants(run).violations
    for violation in violations.prefix(25) {
      Issue.record("\(scenario.summary) — \(violation)  (rerun: make torture SEED=\(seed))")
    }
    if let kept = TortureSeeds.keptFolders, !violations.isEmpty {
      let destination = URL(fileURLWithPath: kept).appendingPathComponent("seed-\(seed)")
      try? FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
      try? FileManager.default.removeItem(at: destination)
      try? FileManager.default.copyItem(at: run.folder.url, to: destination)
    }
    if violations.count > 25 { Issue.record("seed \(seed): \(violations.count - 25) more violations") }
    if let path = TortureSeeds.verdictLog {
      let invariants = Set(violations.map(\.invariant)).sorted().joined(separator: ",")
      let line =
        "seed=\(seed) seconds=\(String(format: "%.1f", Date().timeIntervalSince(started))) "
        + "violations=\(invariants.isEmpty ? "none" : invariants) | \(scenario.summary)\n"
      if let handle = FileHandle(forWritingAtPath: path)
        ?? {
          FileManager.default.createFile(atPath: path, contents: nil)
          return FileHandle(forWritingAtPath: path)
        }()
      {
        handle.seekToEndOfFile()
        handle.write(Data(line.utf8))
        try? handle.close()
      }
    }
  }
}
