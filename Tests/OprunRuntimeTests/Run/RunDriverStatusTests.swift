import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// `oprun ctl status --json` (SPEC §8): "`run` {`pid`, `run` (RUN-ID), `manifest` (absolute
/// path), `started` (Unix time), `counts`}; `queues`, a list in manifest order (the main
/// queue first) of {`name`, `max_concurrent`, `running`, `suspended`}; `jobs`, a list in
/// manifest order of {`name`, `queue`, `state`, `outcome` (null until finished),
/// `cancelled`, `priority`, `pids`}."
@Suite struct RunDriverStatusTests {
  static let identity = RunIdentity(
    id: "20260101T000000-4242", manifestPath: "/work/jobs.yaml", started: 1_767_225_600.25, pid: 4242)

  /// The answer line as the channel writes it: `ok`, then the members of the data.
  func answer(_ exchange: ControlExchange) throws -> [String: Any] {
    let line = #"{"ok":true,"# + exchange.data + "}"
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  @Test func statusAnswersTheRunEveryQueueAndEveryJobInManifestOrder() throws {
    let run = DriverHarness(
      """
      max-concurrent: 2
      queues: {net: {max-concurrent: 1}}
      jobs:
        fetch: {command: fetch, queue: net}
        build: {commands: [one, two], priority: high}
        test: {command: test, dependencies: [build]}
        upload: {command: upload, queue: net, dependencies: [fetch]}
        lint: {command: lint, qos: background}
      """)
    run.backend.scripts = [
      "one": FakeCommand(duration: 10), "two": FakeCommand(duration: 10), "lint": FakeCommand(duration: 10),
    ]
    run.driver.start(run: Self.identity)
    run.control("suspend", "net")
    run.advance(by: 1)
    run.control("cancel", "upload")
    run.control("pause", "build")
    run.control("priority", "test", "-4")
    let exchange = run.control("status")
    #expect(exchange.ok && exchange.error == nil)
    let status = try answer(exchange)
    #expect(Set(status.keys) == ["ok", "run", "queues", "jobs"])

    let runObject = try #require(status["run"] as? [String: Any])
    #expect(runObject["pid"] as? Int == 4242)
    #expect(runObject["run"] as? String == "20260101T000000-4242")
    #expect(runObject["manifest"] as? String == "/work/jobs.yaml")
    #expect(runObject["started"] as? Double == 1_767_225_600.25)
    #expect(
      runObject["counts"] as? [String: Int] == [
        "pending": 1, "ready": 1, "executing": 2, "succeeded": 1, "failed": 0, "cancelled": 0, "skipped": 0,
        "timed-out": 0,
      ])

    let queues = try #require(status["queues"] as? [[String: Any]])
    #expect(queues.map { $0["name"] as? String } == ["jobs", "net"])
    #expect(queues.map { $0["max_concurrent"] as? Int } == [2, 1])
    #expect(queues.map { $0["running"] as? Int } == [2, 0])
    #expect(queues.map { $0["suspended"] as? Bool } == [false, true])

    let jobs = try #require(status["jobs"] as? [[String: Any]])
    #expect(jobs.map { $0["name"] as? String } == ["fetch", "build", "test", "upload", "lint"])
    #expect(jobs.map { $0["queue"] as? String } == ["net", "jobs", "jobs", "net", "jobs"])
    #expect(jobs.map { $0["state"] as? String } == ["finished", "executing", "pending", "ready", "executing"])
    #expect(jobs.map { $0["outcome"] as? String } == ["succeeded", nil, nil, nil, nil])
    #expect(jobs.map { $0["outcome"] is NSNull } == [false, true, true, true, true])
    #expect(jobs.map { $0["cancelled"] as? Bool } == [false, false, false, true, false])
    #expect(jobs.map { $0["priority"] as? String } == ["normal", "high", "low", "normal", "veryLow"])
    let build = ["one", "two"].map { Int(run.backend.handle(of: $0)!.id) }
    let lint = [Int(run.backend.handle(of: "lint")!.id)]
    #expect(jobs.map { $0["pids"] as? [Int] } == [[], build, [], [], lint])
    #expect(jobs.map { $0["paused"] as? Bool } == [false, true, false, false, false])
    #expect(Array(jobs[0].keys).count == 8)
  }

  /// The answer's members, as the channel splices them after `"ok":true`.
  @Test func statusDataIsTheMembersOfTheAnswerObjectInAFixedOrder() throws {
    let run = DriverHarness("jobs: {a: {command: build}}")
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.driver.start(run: Self.identity)
    let data = run.control("status").data
    let pid = run.backend.handle(of: "build")!.id
    #expect(
      data
        == #""run":{"pid":4242,"run":"20260101T000000-4242","manifest":"/work/jobs.yaml","started":1767225600.25,"#
        + #""counts":{"pending":0,"ready":0,"executing":1,"succeeded":0,"failed":0,"cancelled":0,"skipped":0,"timed-out":0}},"#
        + #""queues":[{"name":"jobs","max_concurrent":4,"running":1,"suspended":false}],"#
        + #""jobs":[{"name":"a","queue":"jobs","state":"executing","outcome":null,"cancelled":false,"priority":"normal","#
        + #""pids":[\#(pid)],"paused":false}]"#)
  }

  /// `status` of 10,000 jobs answers every one of them, in manifest order, in one answer.
  /// (How fast is for `make bench`: a time limit here failed a sanitizer build on a loaded machine.)
  @Test func statusOfTenThousandJobsAnswersEveryJob() throws {
    let count = 10_000
    var manifest = "max-concurrent: 4\njobs:\n"
    for index in 0..<count { manifest += "  j\(index): {command: c\(index % 7)}\n" }
    let run = DriverHarness(manifest)
    run.driver.start(run: Self.identity)
    let status = try answer(run.control("status"))
    let jobs = try #require(status["jobs"] as? [[String: Any]])
    #expect(jobs.count == count)
    #expect(jobs.first?["name"] as? String == "j0")
    #expect(jobs.last?["name"] as? String == "j9999")
    #expect(jobs.filter { $0["state"] as? String == "executing" }.count == 4)
  }

  @Test func requestOrRefusedPeerBeforeTheRunStartsMakesNoEvent() {
    let run = DriverHarness("jobs: {a: {command: build}}")
    let exchange = run.control("status")
    #expect(!exchange.ok && exchange.error == "the run has not started yet")
    run.driver.apply(.controlRefused(peerUID: 1001, peerPID: 9))
    #expect(run.events.all.isEmpty)
    run.start()
    #expect(run.events.lines.first == "run-started")
  }
}
