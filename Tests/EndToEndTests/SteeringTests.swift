import Foundation
import Testing

/// Steering a run while it runs (SPEC §8) through `oprun ctl`, asserted on the event stream.
@Suite struct SteeringTests {
  @Test func aCancelledQueuedJobNeverRunsAndItsDependentsFollowTheirRunIf() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 1
      jobs:
        gate: {command: "\(waitFor("go"))"}
        victim: {command: touch ran-victim}
        on-success: {command: touch ran-on-success, dependencies: [victim]}
        on-always: {command: touch ran-on-always, dependencies: [victim], run-if: always}
      """)
    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["cancel", "victim"])
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(!log.executed("victim"))
    #expect(log.outcome(of: "victim") == "cancelled")
    #expect(log.cancelReason(of: "victim") == "control")
    #expect(!scene.folder.exists("ran-victim"))
    #expect(log.outcome(of: "on-success") == "skipped")
    #expect(!scene.folder.exists("ran-on-success"))
    #expect(log.outcome(of: "on-always") == "succeeded")
    #expect(scene.folder.exists("ran-on-always"))
    let control = try #require(log.controlIndex("cancel"))
    let cancelled = try #require(log.index { $0.string("event") == "cancelled" && $0.string("job") == "victim" })
    #expect(control < cancelled)
    #expect(log.named("control").first?["ok"] as? Bool == true)
  }

  @Test func raisingTheLimitStartsMoreJobsAtOnce() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 1
      jobs:
        a: {command: "\(waitFor("go"))"}
        b: {command: "\(waitFor("go"))"}
        c: {command: "\(waitFor("go"))"}
      """)
    let run = try scene.startRun()
    try waitUntil("a executing") { run.log.executed("a") }
    try scene.steer(["limit", "main", "3"])
    try waitUntil("b and c executing") { run.log.executed("b") && run.log.executed("c") }
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    let limit = try #require(log.index { $0.string("event") == "limit" })
    #expect(log.named("limit").first?.int("max_concurrent") == 3)
    #expect(log.named("limit").first?.string("queue") == "main")
    #expect(log.mostExecuting(queue: "main", in: 0..<limit) == 1)
    #expect(log.mostExecuting(queue: "main", in: 0..<log.events.count) == 3)
    #expect(try #require(log.index(of: "b", to: "executing")) > limit)
    #expect(try #require(log.index(of: "c", to: "executing")) > limit)
  }

  @Test func suspendingOneQueueLeavesTheOtherRunningAndResumeStartsByPriorityThenFIFO() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 1
      queues:
        other: {max-concurrent: 1}
      jobs:
        gate: {command: "\(waitFor("go"))", priority: veryHigh}
        low: {command: "true", priority: low}
        high-1: {command: "true", priority: high}
        normal: {command: "true"}
        high-2: {command: "true", priority: high}
        other-gate: {command: "\(waitFor("go-other"))", queue: other}
        other-next: {command: "true", queue: other}
      """)
    let run = try scene.startRun()
    try waitUntil("both gates executing") { run.log.executed("gate") && run.log.executed("other-gate") }
    try scene.steer(["suspend", "main"])
    #expect(try scene.status().queue("main")?["suspended"] as? Bool == true)
    #expect(try scene.status().queue("other")?["suspended"] as? Bool == false)
    scene.folder.touch("go")
    try waitUntil("gate finished") { run.log.finish(of: "gate") != nil }
    scene.folder.touch("go-other")
    try waitUntil("other-next finished") { run.log.finish(of: "other-next") != nil }
    for job in ["low", "high-1", "normal", "high-2"] {
      #expect(!run.log.executed(job), "\(job) started in a suspended queue")
    }
    try scene.steer(["resume", "main"])
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(log.order(of: "executing", queue: "main") == ["gate", "high-1", "high-2", "normal", "low"])
    #expect(log.order(of: "executing", queue: "other") == ["other-gate", "other-next"])
    let queueStates = log.named("queue").filter { $0.string("queue") == "main" }.compactMap { $0.string("state") }
    #expect(queueStates == ["suspended", "resumed"])
    let resumed = try #require(log.controlIndex("resume"))
    #expect(try #require(log.index(of: "high-1", to: "executing")) > resumed)
  }

  @Test func reprioritisingTheLastQueuedJobStartsItFirstAfterTheGate() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 1
      jobs:
        gate: {command: "\(waitFor("go"))"}
        a: {command: "true"}
        b: {command: "true"}
        c: {command: "true"}
      """)
    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["priority", "c", "veryHigh"])
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(log.order(of: "executing", queue: "main") == ["gate", "c", "a", "b"])
    let priority = try #require(log.named("priority").first)
    #expect(priority.string("job") == "c")
    #expect(try #require(log.controlIndex("priority")) < (try #require(log.index(of: "c", to: "executing"))))
  }

  @Test func pauseStopsEveryProcessOfTheGroupAndContinueResumesThem() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        worker: {command: "(\(waitFor("go"))) & (\(waitFor("go"))) & touch up; wait"}
      """)
    let run = try scene.startRun()
    try scene.folder.waitUntilExists("up")
    // The job may get this far before oprun has written its `executing` event.
    try scene.folder.waitUntilExecuting("worker")
    let group = try #require(run.log.pids(of: "worker").first)
    try waitUntil("three shells in the group") { liveMembers(ofGroup: group).count >= 3 }

    try scene.steer(["pause", "worker"])
    var lastSeen = ""
    do {
      try waitUntil("every process of the group stopped") {
        let members = liveMembers(ofGroup: group)
        lastSeen = members.map { "\($0):\(ProcessStat(pid: $0)?.state ?? "?")" }.joined(separator: " ")
        return everyMemberIsStopped(ofGroup: group)
      }
    } catch {
      // Say which process was not stopped, if one ever is.
      Issue.record("\(error); group \(group) last seen as \(lastSeen); last events: \(run.log.events.suffix(5))")
      throw error
    }
    #expect(try scene.status().job("worker")?.string("state") == "executing")
    try scene.steer(["continue", "worker"])
    try waitUntil("no process of the group stopped") {
      liveMembers(ofGroup: group).allSatisfy { ProcessStat(pid: $0)?.state != "T" }
    }
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(log.outcome(of: "worker") == "succeeded")
    let paused = try #require(log.index { $0.string("event") == "paused" && $0.string("job") == "worker" })
    let continued = try #require(log.index { $0.string("event") == "continued" && $0.string("job") == "worker" })
    #expect(paused < continued)
    #expect(try #require(log.controlIndex("pause")) < paused)
    #expect(try #require(log.controlIndex("continue")) < continued)
  }

  /// The grandchild ignores SIGTERM: only the SIGKILL after the grace (1 s) ends it.
  @Test(arguments: [false, true])
  func cancellingAJobWhoseGrandchildIgnoresSIGTERMLeavesNoProcess(paused: Bool) throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        stubborn: {command: "sh -c 'trap \\"\\" TERM; sleep 300 & touch up; wait'"}
      """)
    let run = try scene.startRun(["--grace", "1"])
    try scene.folder.waitUntilExists("up")
    // The job may get this far before oprun has written its `executing` event.
    try scene.folder.waitUntilExecuting("stubborn")
    let group = try #require(run.log.pids(of: "stubborn").first)
    try waitUntil("the grandchild runs sleep") { groupRuns(group, command: "sleep") }
    if paused {
      try scene.steer(["pause", "stubborn"])
      try waitUntil("the group stopped") {
        liveMembers(ofGroup: group).allSatisfy { ProcessStat(pid: $0)?.state == "T" }
      }
    }
    try scene.steer(["cancel", "stubborn"])
    // The deadline is the grace plus one second: SIGKILL comes after the grace.
    try waitUntil("no process left in the group", limit: 2) { liveMembers(ofGroup: group).isEmpty }
    let finished = run.process.wait()

    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    expectNoProcessLeft(log)
    #expect(log.outcome(of: "stubborn") == "cancelled")
    #expect(log.cancelReason(of: "stubborn") == "control")
    if paused {
      let continued = try #require(log.index { $0.string("event") == "continued" && $0.string("job") == "stubborn" })
      #expect(try #require(log.controlIndex("cancel")) < continued)
    }
  }
}

/// A shell loop that waits until the file `name` exists in the job's folder.
func waitFor(_ name: String) -> String {
  "while [ ! -e \(name) ]; do sleep 0.02; done"
}

extension ControlScene {
  /// `oprun ctl ARGS`, expected to be accepted (exit 0).
  func steer(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let result = try ctl(arguments)
    #expect(result.status == 0, "ctl \(arguments): \(result.stderr)", sourceLocation: sourceLocation)
  }

  /// `oprun ctl status --json`, parsed.
  func status(sourceLocation: SourceLocation = #_sourceLocation) throws -> RunStatus {
    let result = try ctl(["status", "--json"])
    #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return RunStatus(object: try #require(object, sourceLocation: sourceLocation))
  }
}

/// What `oprun ctl status --json` answered.
struct RunStatus {
  var object: [String: Any]
  var queues: [[String: Any]] { object["queues"] as? [[String: Any]] ?? [] }
  var jobs: [[String: Any]] { object["jobs"] as? [[String: Any]] ?? [] }
  var counts: [String: Any] { (object["run"] as? [String: Any])?["counts"] as? [String: Any] ?? [:] }
  func queue(_ name: String) -> [String: Any]? { queues.first { $0.string("name") == name } }
  func job(_ name: String) -> [String: Any]? { jobs.first { $0.string("name") == name } }
}

extension EventLog {
  /// Where the first `control` event of `command` stands in the stream.
  func controlIndex(_ command: String) -> Int? {
    index { $0.string("event") == "control" && $0.string("command") == command }
  }

  /// The most jobs of `queue` executing at once while the events of `range` happened,
  /// replaying the whole stream up to the range's end.
  func mostExecuting(queue: String, in range: Range<Int>) -> Int {
    var executing = 0
    var most = 0
    for (offset, event) in events.enumerated() where offset < range.upperBound {
      guard event.string("event") == "transition", event.string("queue") == queue else { continue }
      if event.string("to") == "executing" {
        executing += 1
      } else if event.string("from") == "executing" {
        executing -= 1
      }
      if range.contains(offset) { most = max(most, executing) }
    }
    return most
  }
}
