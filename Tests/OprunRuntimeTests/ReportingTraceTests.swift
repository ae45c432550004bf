import Foundation
import OprunCore
import OprunRuntime
import Testing

/// The Chrome trace-event file (`--trace`).
@Suite struct ReportingTraceTests {
  let graph = makeGraph(
    jobs: ["a", "b", "c", "net"],
    queues: [QueueNode(name: "ci", maxConcurrent: 2), QueueNode(name: "network", maxConcurrent: 1)],
    jobQueues: [0, 0, 0, 1])

  /// a and b run together; c starts when a has finished; net runs on its own queue.
  var run: [RunEvent] {
    [
      RunEvent(time: 0, .runStarted(queues: graph.queues, jobs: 4, run: "r7", control: nil)),
      transition(0, .ready, .executing, pids: [100], at: 0.001),
      transition(1, .ready, .executing, pids: [101, 102], at: 0.002),
      transition(3, .ready, .executing, queue: 1, pids: [103], at: 0.003),
      transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 0.499, at: 0.5),
      transition(2, .ready, .executing, pids: [104], at: 0.5),
      RunEvent(time: 0.6, .cancelled(job: 1, reason: .interrupt)),
      transition(1, .executing, .finished, outcome: .cancelled, termination: .signalled(2), duration: 0.7, at: 0.702),
      RunEvent(time: 0.71, .completionStarted(job: 1, pid: 105)),
      RunEvent(time: 0.8, .completion(job: 1, termination: .exited(0))),
      transition(2, .executing, .finished, outcome: .failed, termination: .exited(3), duration: 0.5, at: 1.0),
      transition(
        3, .executing, .finished, queue: 1, outcome: .succeeded, termination: .exited(0), duration: 1, at: 1.003),
      runFinished(exitCode: 130, at: 1.1),
    ]
  }

  func trace(_ events: [RunEvent]) throws -> (text: String, events: [[String: Any]]) {
    let capture = CapturedOutput()
    let writer = TraceWriter(graph: graph, sink: capture.sink)
    writer.observe(events)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(capture.bytes)) as? [String: Any])
    let traceEvents = try #require(document["traceEvents"] as? [[String: Any]])
    return (capture.text, traceEvents)
  }

  func slices(_ events: [[String: Any]]) -> [String: [String: Any]] {
    var byName: [String: [String: Any]] = [:]
    for event in events where event["ph"] as? String == "X" { byName[event["name"] as! String] = event }
    return byName
  }

  @Test func nothingIsWrittenBeforeTheRunFinishes() throws {
    let capture = CapturedOutput()
    TraceWriter(graph: graph, sink: capture.sink).observe(Array(run.dropLast()))
    #expect(capture.bytes.isEmpty)
  }

  @Test func theFileIsOneTraceEventDocument() throws {
    let capture = CapturedOutput()
    TraceWriter(graph: graph, sink: capture.sink).observe(run)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(capture.bytes)) as? [String: Any])
    #expect(document["displayTimeUnit"] as? String == "ms")
    #expect((document["otherData"] as? [String: String])?["run"] == "r7")
  }

  @Test func eachExecutionIsACompleteEventInMicroseconds() throws {
    let a = try #require(slices(try trace(run).events)["a"])
    #expect(a["ph"] as? String == "X")
    #expect(a["cat"] as? String == "ci")
    #expect(a["pid"] as? Int == 1)
    #expect(a["ts"] as? Double == 1000)
    #expect(a["dur"] as? Double == 499_000)
    let args = try #require(a["args"] as? [String: Any])
    #expect(args["outcome"] as? String == "succeeded")
    #expect(args["pids"] as? [Int] == [100])
    #expect(args["exit_code"] as? Int == 0)
    #expect(args["signal"] is NSNull)
  }

  @Test func concurrentJobsGetDifferentLanesAndAFreedLaneIsReused() throws {
    let byName = slices(try trace(run).events)
    let tids = ["a", "b", "c", "net", "completion b"].map { byName[$0]?["tid"] as? Int }
    // ci has lanes 1 and 2; network's lane follows them; completions come last.
    #expect(tids == [1, 2, 1, 3, 4])
  }

  @Test func lanesAreNamedAfterTheirQueues() throws {
    let events = try trace(run).events
    var names: [Int: String] = [:]
    for event in events where event["ph"] as? String == "M" && event["name"] as? String == "thread_name" {
      names[event["tid"] as! Int] = (event["args"] as? [String: String])?["name"]
    }
    #expect(
      names == [0: "run", 1: "ci · lane 1", 2: "ci · lane 2", 3: "network · lane 1", 4: "completions · lane 1"])
    let process = events.first { $0["name"] as? String == "process_name" }
    #expect((process?["args"] as? [String: String])?["name"] == "oprun ci")
  }

  @Test func cancellationsAreInstantsOnTheCancelledJobsLane() throws {
    let instant = try #require(try trace(run).events.first { $0["ph"] as? String == "i" })
    #expect(instant["name"] as? String == "cancelled b")
    #expect(instant["tid"] as? Int == 2)
    #expect(instant["ts"] as? Double == 600_000)
    #expect((instant["args"] as? [String: String])?["reason"] == "interrupt")
  }

  @Test func aRetriedJobHasOneSliceForEachAttemptOnTheSameLane() throws {
    let events = try trace([
      transition(0, .ready, .executing, pids: [1], at: 0),
      transition(0, .executing, .executing, attempt: 2, pids: [2], at: 1),
      transition(
        0, .executing, .finished, attempt: 2, outcome: .succeeded, termination: .exited(0), duration: 1, at: 2),
      runFinished(exitCode: 0, at: 2),
    ]).events
    let attempts = events.filter { $0["ph"] as? String == "X" }
    #expect(attempts.map { ($0["args"] as? [String: Any])?["outcome"] as? String } == ["retried", "succeeded"])
    #expect(attempts.map { $0["tid"] as? Int } == [1, 1])
  }

  @Test func jobsStillExecutingWhenTheRunEndsAreClosedThere() throws {
    let events = try trace([transition(0, .ready, .executing, pids: [1], at: 0.25), runFinished(exitCode: 1, at: 1)])
      .events
    let slice = try #require(slices(events)["a"])
    #expect(slice["dur"] as? Double == 750_000)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
  func pythonsJSONParserAcceptsTheFile() throws {
    let capture = CapturedOutput()
    TraceWriter(graph: graph, sink: capture.sink).observe(run)
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-trace-\(getpid()).json").path
    try Data(capture.bytes).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    python.arguments = ["-c", "import json,sys; d=json.load(open(sys.argv[1])); assert d['traceEvents']", path]
    try python.run()
    python.waitUntilExit()
    #expect(python.terminationStatus == 0)
  }
}
