import Foundation
import OprunCore
import OprunRuntime
import Testing

/// The `--events` NDJSON stream, field by field (SPEC §2).
@Suite struct ReportingEventStreamTests {
  let graph = makeGraph(
    jobs: ["fetch", "build \"main\""],
    queues: [QueueNode(name: "ci", maxConcurrent: 4), QueueNode(name: "network", maxConcurrent: 2)],
    jobQueues: [1, 0])

  func stream(_ events: [RunEvent], includingOutput: Bool = true) -> [String] {
    let capture = CapturedOutput()
    EventStreamWriter(graph: graph, sink: capture.sink, includingOutput: includingOutput).observe(events)
    return capture.lines
  }

  func object(_ line: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  @Test func runStartedListsQueuesJobsRunAndControl() throws {
    let lines = stream([
      RunEvent(time: 0.000012, .runStarted(queues: graph.queues, jobs: 2, run: "20240501-1", control: "/tmp/o.sock"))
    ])
    #expect(
      lines == [
        #"{"t":0.000012,"event":"run-started","queues":{"ci":4,"network":2},"jobs":2,"run":"20240501-1","control":"/tmp/o.sock"}"#
      ])
    let parsed = try object(lines[0])
    #expect(parsed["queues"] as? [String: Int] == ["ci": 4, "network": 2])
  }

  @Test func runStartedLeavesOutControlWhenThereIsNone() throws {
    let lines = stream([RunEvent(time: 0, .runStarted(queues: graph.queues, jobs: 2, run: "r", control: nil))])
    #expect(try object(lines[0]).keys.contains("control") == false)
  }

  @Test func transitionsNameTheirJobQueueStatesAndAttempt() throws {
    let lines = stream([transition(0, .pending, .ready, queue: 1, at: 0.5)])
    #expect(
      lines == [
        #"{"t":0.5,"event":"transition","job":"fetch","queue":"network","from":"pending","to":"ready","attempt":1}"#
      ])
  }

  @Test func aJobMadeReadyByADependencyNamesItAsAfter() throws {
    var ready = Transition(job: 1, queue: 0, from: .pending, to: .ready)
    ready.readyAfter = 0
    let lines = stream([RunEvent(time: 1, .transition(ready)), transition(0, .pending, .ready, queue: 1, at: 0)])
    #expect(try object(lines[0])["after"] as? String == "fetch")
    #expect(lines[0].hasSuffix(#""attempt":1,"after":"fetch"}"#))
    #expect(try object(lines[1]).keys.contains("after") == false)
  }

  @Test func executingTransitionsListTheirPidsInCommandOrder() throws {
    let lines = stream([transition(1, .ready, .executing, attempt: 2, pids: [303, 301], at: 1)])
    let parsed = try object(lines[0])
    #expect(parsed["job"] as? String == "build \"main\"")
    #expect(parsed["pids"] as? [Int] == [303, 301])
    #expect(parsed["attempt"] as? Int == 2)
    #expect(lines[0].hasSuffix(#""attempt":2,"pids":[303,301]}"#))
  }

  @Test func aFinishedTransitionHasOutcomeExitCodeNullSignalAndDuration() throws {
    let lines = stream([
      transition(0, .executing, .finished, queue: 1, outcome: .failed, termination: .exited(2), duration: 1.25, at: 2)
    ])
    #expect(
      lines == [
        #"{"t":2,"event":"transition","job":"fetch","queue":"network","from":"executing","to":"finished","attempt":1,"outcome":"failed","exit_code":2,"signal":null,"duration":1.25}"#
      ])
    let parsed = try object(lines[0])
    #expect(parsed["signal"] is NSNull)
  }

  @Test func aKilledJobHasANullExitCodeAndItsSignal() throws {
    let parsed = try object(
      stream([
        transition(0, .executing, .finished, outcome: .timedOut, termination: .signalled(9), duration: 5, at: 5)
      ])[0])
    #expect(parsed["outcome"] as? String == "timed-out")
    #expect(parsed["exit_code"] is NSNull)
    #expect(parsed["signal"] as? Int == 9)
  }

  @Test func aJobThatNeverRanHasNullsAndZeroDuration() throws {
    let parsed = try object(stream([transition(0, .ready, .finished, outcome: .skipped, at: 5)])[0])
    #expect(parsed["outcome"] as? String == "skipped")
    #expect(parsed["exit_code"] is NSNull)
    #expect(parsed["signal"] is NSNull)
    #expect(parsed["duration"] as? Double == 0)
    #expect(parsed["resumed"] == nil)
  }

  @Test func aRetryTransitionSaysHowTheFailedAttemptEnded() throws {
    let lines = stream([
      transition(0, .executing, .ready, queue: 1, attempt: 2, termination: .signalled(9), at: 3),
      transition(0, .executing, .ready, queue: 1, attempt: 3, termination: .exited(4), at: 4),
    ])
    #expect(lines[0].hasSuffix(#""from":"executing","to":"ready","attempt":2,"exit_code":null,"signal":9}"#))
    #expect(lines[1].hasSuffix(#""attempt":3,"exit_code":4,"signal":null}"#))
  }

  @Test func aFinishedJobSaysWhatItUsedAndWhereTheFiguresComeFrom() throws {
    var finished = Transition(
      job: 0, queue: 1, from: .executing, to: .finished, outcome: .succeeded, termination: .exited(0), duration: 1)
    finished.usage = ResourceUsage(cpuSeconds: 0.5126, peakMemory: 125_829_120, source: .process)
    let lines = stream([RunEvent(time: 2, .transition(finished))])
    #expect(lines[0].hasSuffix(#""duration":1,"cpu_s":0.513,"peak_memory":125829120,"memory_source":"process"}"#))
  }

  @Test func aRetrySaysWhatItsAttemptUsed() throws {
    var retry = Transition(job: 0, queue: 1, from: .executing, to: .ready, attempt: 2, termination: .signalled(9))
    retry.usage = ResourceUsage(cpuSeconds: 2, peakMemory: 104_857_600, source: .cgroup)
    let parsed = try object(stream([RunEvent(time: 2, .transition(retry))])[0])
    #expect(parsed["peak_memory"] as? Int == 104_857_600)
    #expect(parsed["memory_source"] as? String == "cgroup")
    #expect(parsed["cpu_s"] as? Double == 2)
  }

  @Test func aResumedJobSaysSo() throws {
    let parsed = try object(stream([transition(0, .ready, .finished, outcome: .succeeded, resumed: true, at: 0)])[0])
    #expect(parsed["resumed"] as? Bool == true)
  }

  @Test func cancellationQueueLimitAndPriorityEvents() {
    let lines = stream([
      RunEvent(time: 1, .cancelled(job: 0, reason: .dependencyFailed)),
      RunEvent(time: 2, .queueState(queue: 1, state: .suspended)),
      RunEvent(time: 3, .queueState(queue: 1, state: .resumed)),
      RunEvent(time: 4, .limit(queue: 0, maxConcurrent: 8)),
      RunEvent(time: 5, .priority(job: 1, priority: .veryLow)),
    ])
    #expect(
      lines == [
        #"{"t":1,"event":"cancelled","job":"fetch","reason":"dependency-failed"}"#,
        #"{"t":2,"event":"queue","queue":"network","state":"suspended"}"#,
        #"{"t":3,"event":"queue","queue":"network","state":"resumed"}"#,
        #"{"t":4,"event":"limit","queue":"ci","max_concurrent":8}"#,
        #"{"t":5,"event":"priority","job":"build \"main\"","priority":"veryLow"}"#,
      ])
  }

  /// SPEC §2 and §8: `control` {`command`, `args`, `ok`, `peer_uid`, `peer_pid`}, with the
  /// `error` of a refused request; `control-refused` {`peer_uid`, `peer_pid`}; `paused` and
  /// `continued` {`job`}.
  @Test func controlRequestsRefusedPeersAndPausesAreEvents() throws {
    let lines = stream([
      RunEvent(
        time: 1, .control(command: "cancel", args: ["fetch"], ok: true, peerUID: 1000, peerPID: 4242, error: nil)),
      RunEvent(
        time: 2,
        .control(
          command: "pause", args: ["biuld", "x\"y"], ok: false, peerUID: 0, peerPID: 7,
          error: "unknown job 'biuld' (did you mean 'build \"main\"'?)")),
      RunEvent(time: 3, .controlRefused(peerUID: 1001, peerPID: 99)),
      RunEvent(time: 4, .paused(job: 1)),
      RunEvent(time: 5, .continued(job: 1)),
    ])
    #expect(
      lines == [
        #"{"t":1,"event":"control","command":"cancel","args":["fetch"],"ok":true,"peer_uid":1000,"peer_pid":4242}"#,
        #"{"t":2,"event":"control","command":"pause","args":["biuld","x\"y"],"ok":false,"peer_uid":0,"peer_pid":7,"error":"unknown job 'biuld' (did you mean 'build \"main\"'?)"}"#,
        #"{"t":3,"event":"control-refused","peer_uid":1001,"peer_pid":99}"#,
        #"{"t":4,"event":"paused","job":"build \"main\""}"#,
        #"{"t":5,"event":"continued","job":"build \"main\""}"#,
      ])
    let refused = try object(lines[1])
    #expect(refused["args"] as? [String] == ["biuld", "x\"y"])
    #expect(refused["ok"] as? Bool == false)
    #expect(try object(lines[0])["error"] == nil)
  }

  /// SPEC §10: `waiting` {`job`, `pid`}: a ready job waits for another oprun that runs it, whose
  /// pid its lock names (null when it does not yet).
  @Test func aJobWaitingForAnotherRunIsAnEventNamingThatRunsPid() {
    let lines = stream([
      RunEvent(time: 1, .waitingForOtherRun(job: 1, pid: 4242)),
      RunEvent(time: 2, .waitingForOtherRun(job: 0, pid: nil)),
    ])
    #expect(
      lines == [
        #"{"t":1,"event":"waiting","job":"build \"main\"","pid":4242}"#,
        #"{"t":2,"event":"waiting","job":"fetch","pid":null}"#,
      ])
  }

  @Test func completionsReportTheirExitCodeOrSignal() {
    let lines = stream([
      RunEvent(time: 1, .completionStarted(job: 0, pid: 77)),
      RunEvent(time: 2, .completion(job: 0, termination: .exited(0))),
      RunEvent(time: 3, .completion(job: 0, termination: .signalled(15))),
    ])
    #expect(
      lines == [
        #"{"t":1,"event":"completion-started","job":"fetch","pid":77}"#,
        #"{"t":2,"event":"completion","job":"fetch","exit_code":0,"signal":null}"#,
        #"{"t":3,"event":"completion","job":"fetch","exit_code":null,"signal":15}"#,
      ])
  }

  @Test func runFinishedCountsEveryOutcome() throws {
    let lines = stream([runFinished(exitCode: 130, counts: [.succeeded: 2, .cancelled: 1], at: 9.5)])
    #expect(
      lines == [
        #"{"t":9.5,"event":"run-finished","exit_code":130,"counts":{"succeeded":2,"failed":0,"cancelled":1,"skipped":0,"timed-out":0}}"#
      ])
  }

  @Test func eachLineAJobPrintsIsAnOutputEventUnlessOutputIsLeftOut() {
    let events = [
      output(0, "assertion failed: \"x\"\n", at: 0.1),
      RunEvent(time: 0.2, .warning("journal: \"x\"\nunreadable")),
    ]
    let warning = #"{"t":0.2,"event":"warning","message":"journal: \"x\"\nunreadable"}"#
    #expect(
      stream(events) == [
        #"{"t":0.1,"event":"output","job":"fetch","stream":"stdout","text":"assertion failed: \"x\"\n"}"#, warning,
      ])
    #expect(stream(events, includingOutput: false) == [warning])
  }

  @Test func eachLineIsWrittenAsSoonAsItsEventIsObserved() {
    let capture = CapturedOutput()
    let writer = EventStreamWriter(graph: graph, sink: capture.sink, includingOutput: true)
    writer.observe(transition(0, .pending, .ready, at: 0))
    #expect(capture.lines.count == 1)
    writer.observe(transition(0, .ready, .executing, pids: [1], at: 0))
    #expect(capture.lines.count == 2)
  }

  @Test func everyLineOfAWholeRunIsAJSONObjectWithTAndEventFirst() throws {
    var events = [RunEvent(time: 0, .runStarted(queues: graph.queues, jobs: 2, run: "r", control: nil))]
    events += lifecycle(0, start: 0.001, end: 0.2, pid: 10, queue: 1)
    events += lifecycle(1, start: 0.2, end: 0.3, pid: 11, outcome: .failed, termination: .exited(1))
    events.append(runFinished(exitCode: 1, counts: [.succeeded: 1, .failed: 1], at: 0.31))
    let lines = stream(events)
    #expect(lines.count == 8)
    for line in lines {
      let parsed = try object(line)
      #expect(parsed["t"] is NSNumber)
      #expect(line.hasPrefix(#"{"t":"#))
      #expect(line.contains(#","event":""#))
    }
    #expect(try object(lines.last!)["event"] as? String == "run-finished")
  }
}
