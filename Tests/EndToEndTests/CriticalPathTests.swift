import Foundation
import Testing

/// `--schedule critical-path` (SPEC §5), weighed by the durations in the manifest's
/// journals (§9), read from the event stream of serial runs (`-j 1`).
@Suite struct CriticalPathTests {
  /// `short` comes first in the manifest; `head`, quick itself, heads the chain to `tail`.
  /// A run of `tail` alone records the chain's durations and none of `short`'s, so that
  /// afterwards `short` weighs exactly 1 s (unknown) while `tail`, and so `head`'s path, weighs
  /// at least 1.05 s: a sleep lasts at least as long as asked, so the order below depends on
  /// no machine's speed.
  static let manifest = """
    jobs:
      short: {command: 'true'}
      head: {command: 'true'}
      tail: {command: sleep 1.05, dependencies: [head]}
    """

  @Test func criticalPathStartsTheHeadOfTheLongestChainWhereFIFOStartsTheShortJobFirst() throws {
    let folder = try Scratch()
    try folder.manifest(Self.manifest)
    let seed = try runOprun(["-q", "jobs.yaml", "tail"], in: folder)
    #expect(seed.status == 0, "\(seed.stderr)")

    let critical = try runOprun(
      ["jobs.yaml", "-j", "1", "--schedule", "critical-path", "--events", "cp.ndjson"], in: folder)
    #expect(critical.status == 0, "\(critical.stderr)")
    let criticalLog = EventLog(path: folder.path("cp.ndjson"))
    #expect(criticalLog.order(of: "executing") == ["head", "tail", "short"])
    expectStreamContract(criticalLog)

    let fifo = try runOprun(["jobs.yaml", "-j", "1", "--events", "fifo.ndjson"], in: folder)
    #expect(fifo.status == 0, "\(fifo.stderr)")
    let fifoLog = EventLog(path: folder.path("fifo.ndjson"))
    #expect(fifoLog.order(of: "executing") == ["short", "head", "tail"])
    expectStreamContract(fifoLog)
  }

  @Test func dryRunShowsTheWeightsTakenFromTheJournalAndTheRemainingPaths() throws {
    let folder = try Scratch()
    try folder.manifest(Self.manifest)
    let seed = try runOprun(["-q", "jobs.yaml", "tail"], in: folder)
    #expect(seed.status == 0, "\(seed.stderr)")
    let recorded = try journalDurations(in: folder)

    let plan = try runOprun(["-n", "-j", "1", "--schedule", "critical-path", "jobs.yaml"], in: folder)
    #expect(plan.status == 0, "\(plan.stderr)")
    let steps = planSteps(plan.stdout)
    #expect(steps.map(\.job) == ["head", "tail", "short"], "\(plan.stdout)")
    let byJob = Dictionary(uniqueKeysWithValues: steps.map { ($0.job, $0) })
    for job in ["head", "tail"] {
      let weight = try #require(byJob[job]?.weight)
      #expect(abs(weight - (recorded[job] ?? -1)) < 0.0005, "\(job): \(plan.stdout)")
    }
    let head = try #require(byJob["head"])
    let tail = try #require(byJob["tail"])
    #expect(abs(head.path - (head.weight + tail.weight)) < 0.0015, "\(plan.stdout)")
    #expect(byJob["short"]?.line.contains("weight 1s (unknown), path 1s") == true, "\(plan.stdout)")
    #expect(try journalCount(in: folder) == 1, "-n keeps no journal")
  }

  @Test func anUnknownScheduleIsAUsageErrorThatRunsNothing() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  a: {command: touch a.ran}\n")
    let run = try runOprun(["--schedule", "longest", "jobs.yaml"], in: folder)
    #expect(run.status == 2)
    #expect(run.stderr.contains("longest"), "\(run.stderr)")
    #expect(!folder.exists("a.ran"))
  }

  // MARK: Reading what oprun wrote

  /// One line of the plan: `  1. head   weight 0.556s, path 1.112s; no dependencies; ...`.
  struct PlanLine {
    var job: String
    var weight: Double
    var path: Double
    var line: String
  }

  private func planSteps(_ text: String) -> [PlanLine] {
    text.split(separator: "\n").compactMap { line in
      guard let match = line.firstMatch(of: /^ +[0-9]+\. (\S+) +weight ([0-9.]+)s(?: \(unknown\))?, path ([0-9.]+)s;/),
        let weight = Double(match.2), let path = Double(match.3)
      else { return nil }
      return PlanLine(job: String(match.1), weight: weight, path: path, line: String(line))
    }
  }

  /// Each job's duration in the one journal of the folder.
  private func journalDurations(in folder: Scratch) throws -> [String: Double] {
    let runs = folder.path(".oprun/runs")
    let files = try FileManager.default.contentsOfDirectory(atPath: runs).filter { $0.hasSuffix(".ndjson") }
    #expect(files.count == 1)
    let text = try String(contentsOfFile: runs + "/" + files[0], encoding: .utf8)
    var durations: [String: Double] = [:]
    for line in text.split(separator: "\n") {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      if object?["type"] as? String == "job", let job = object?["job"] as? String {
        durations[job] = (object?["duration"] as? NSNumber)?.doubleValue
      }
    }
    return durations
  }

  private func journalCount(in folder: Scratch) throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: folder.path(".oprun/runs")).count { $0.hasSuffix(".ndjson") }
  }
}
