import Foundation
import Testing

/// The event stream file every test run writes, in its scratch folder.
let eventsFile = "events.ndjson"

extension Scratch {
  /// Writes `yaml` as the manifest `name` (default `jobs.yaml`) and returns its path.
  @discardableResult
  func manifest(_ yaml: String, name: String = "jobs.yaml") throws -> String {
    try write(name, yaml)
  }

  /// The run's event stream as it stands now (re-read at every call).
  var events: EventLog { EventLog(path: path(eventsFile)) }

  /// Waits until the event stream shows `job` executing.
  func waitUntilExecuting(_ job: String) throws {
    try waitUntil("\(job) executing") { events.executed(job) }
  }

  /// Waits until the event stream shows `job` finished.
  func waitUntilFinished(_ job: String) throws {
    try waitUntil("\(job) finished") { events.finish(of: job) != nil }
  }

  /// Waits until `job` executes and a process of its group has exec'd `command`, so that a
  /// signal sent now meets the job's steady state, not its shell starting up (dash catches
  /// SIGINT while it starts and forks, and a child can lose it before it execs).
  func waitUntilJob(_ job: String, runs command: String) throws {
    try waitUntilExecuting(job)
    let group = try #require(events.pids(of: job).first)
    try waitUntil("\(job) running \(command)") { groupRuns(group, command: command) }
  }

  /// Waits until the file `name` exists in this folder.
  func waitUntilExists(_ name: String) throws {
    try waitUntil("file \(name)") { exists(name) }
  }

  /// Creates an empty file `name`: the signal a job waiting on it is looking for.
  func touch(_ name: String) {
    _ = FileManager.default.createFile(atPath: path(name), contents: nil)
  }
}

/// oprun's arguments for running `jobs.yaml` in the scratch folder with the event stream on.
func runArguments(_ extra: [String] = [], manifest: String = "jobs.yaml") -> [String] {
  [manifest, "--events", eventsFile] + extra
}

/// What every run's stream promises (SPEC §2): `run-started` first, `run-finished` last,
/// and exactly one `finished` transition for every job it announced.
func expectStreamContract(_ log: EventLog, sourceLocation: SourceLocation = #_sourceLocation) {
  #expect(log.events.first?.string("event") == "run-started", sourceLocation: sourceLocation)
  #expect(log.last?.string("event") == "run-finished", sourceLocation: sourceLocation)
  #expect(log.named("run-finished").count == 1, sourceLocation: sourceLocation)
  let counts = log.finishedCounts
  #expect(
    counts.count == log.announcedJobCount, "jobs in transitions: \(counts.keys.sorted())",
    sourceLocation: sourceLocation)
  for (job, finished) in counts.sorted(by: { $0.key < $1.key }) {
    #expect(finished == 1, "\(job) finished \(finished) times", sourceLocation: sourceLocation)
  }
}

/// Nothing the run started is left once oprun has exited: every job's process group is
/// gone (`kill(-pgid, 0)` fails with ESRCH), zombies included, since the run reaps its own.
func expectNoProcessLeft(_ log: EventLog, sourceLocation: SourceLocation = #_sourceLocation) {
  let groups = log.jobGroups
  #expect(!groups.isEmpty, "no job executed", sourceLocation: sourceLocation)
  for group in groups {
    #expect(
      processGroupIsGone(group), "group \(group) still has processes: live \(liveMembers(ofGroup: group))",
      sourceLocation: sourceLocation)
  }
}

/// A line of oprun's own in its human output: a timeline line (the time right-aligned, so one
/// space before it once a run has passed 10 s) or a summary line (`── `).
func isOprunsOwnLine(_ line: some StringProtocol) -> Bool {
  line.hasPrefix("──") || String(line).firstMatch(of: /^ *[0-9]+(\.[0-9]+)?s[ ]{2}/) != nil
}
