import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// How `oprun ctl` shows answers and watched events to a person.
@Suite struct ControlPresentationTests {
  static let statusData = """
    {"run":{"pid":4242,"run":"20260101T000000-4242","manifest":"/work/jobs.yaml","started":0,\
    "counts":{"succeeded":2,"failed":0}},\
    "queues":[{"name":"ci","max_concurrent":2,"running":1,"suspended":false},\
    {"name":"net","max_concurrent":1,"running":0,"suspended":true}],\
    "jobs":[{"name":"build","queue":"ci","state":"executing","outcome":null,"cancelled":false,\
    "priority":"normal","pids":[100,101],"paused":true},\
    {"name":"fetch","queue":"net","state":"finished","outcome":"cancelled","cancelled":true,"priority":"high","pids":[],\
    "paused":false}]}
    """

  @Test func statusIsATableOfQueuesThenJobs() throws {
    setenv("TZ", "UTC", 1)
    tzset()
    let data = try JSONValue.parse(Self.statusData).get()
    #expect(
      ControlText.status(data) == """
        run 20260101T000000-4242 · pid 4242 · started 1970-01-01 00:00:00 · succeeded 2 · /work/jobs.yaml
        QUEUE  LIMIT  RUNNING  SUSPENDED
        ci     2      1        no
        net    1      0        yes

        JOB    QUEUE  STATE      OUTCOME    CANCELLED  PAUSED  PRIORITY  PIDS
        build  ci     executing  -          no         yes     normal    100 101
        fetch  net    finished   cancelled  yes        no      high      -

        """)
  }

  @Test func aStatusWithFewerFieldsIsStillShown() throws {
    let data = try JSONValue.parse(#"{"jobs":[{"name":"a"}]}"#).get()
    #expect(
      ControlText.status(data)
        == "JOB  QUEUE  STATE  OUTCOME  CANCELLED  PAUSED  PRIORITY  PIDS\na    -      -      -        -          -       -         -\n"
    )
  }

  @Test func listShowsEachRunAndThoseThatSaidNothingByPid() throws {
    let run = try JSONValue.parse(#"{"pid":7,"run":"r7","manifest":"/a.yaml","counts":{"failed":1}}"#).get()
    #expect(
      ControlText.list([(7, run), (9, nil)]) == """
        PID  RUN  STARTED  COUNTS    MANIFEST
        7    r7   -        failed 1  /a.yaml
        9    -    -        -         -

        """)
    #expect(ControlText.list([]) == "no run of this user is in progress\n")
  }

  @Test func jsonIsWrittenBackAsItWasRead() throws {
    for text in [
      Self.statusData.replacingOccurrences(of: "\n", with: ""), #"[1.50,-0,1e5,"a\u001b\"\\"]"#, "{}", "[]",
    ] {
      #expect(String(decoding: try JSONValue.parse(text).get().encoded, as: UTF8.self) == text)
    }
  }

  /// Every kind of event the stream writes, output included.
  static func allKinds(_ graph: JobGraph) -> [RunEvent] {
    [
      RunEvent(time: 0, .runStarted(queues: graph.queues, jobs: 3, run: "r", control: "/run/oprun/1.sock")),
      transition(0, .pending, .ready, at: 0.001),
      transition(0, .ready, .executing, pids: [10, 11], at: 0.002),
      output(0, "compiling\nlinked ✓\n", at: 0.1),
      output(1, "partial", stream: .stderr, at: 0.2),
      RunEvent(time: 0.3, .cancelled(job: 1, reason: .control)),
      RunEvent(time: 0.4, .queueState(queue: 0, state: .suspended)),
      RunEvent(time: 0.5, .limit(queue: 0, maxConcurrent: 4)),
      RunEvent(time: 0.6, .priority(job: 2, priority: .veryHigh)),
      transition(0, .executing, .ready, attempt: 2, termination: .signalled(9), at: 0.7),
      transition(
        0, .executing, .finished, attempt: 2, outcome: .failed, termination: .exited(2), duration: 1.5, at: 0.8),
      RunEvent(time: 0.9, .completionStarted(job: 0, pid: 12)),
      RunEvent(time: 1.0, .completion(job: 0, termination: .exited(0))),
      RunEvent(time: 1.1, .warning("cannot write 'x': No space left on device")),
      transition(1, .ready, .finished, outcome: .cancelled, duration: 0, at: 1.2),
      transition(2, .ready, .finished, outcome: .succeeded, duration: 0, resumed: true, at: 1.3),
      RunEvent(
        time: 1.31, .control(command: "cancel", args: ["lint"], ok: false, peerUID: 0, peerPID: 9, error: "finished")),
      RunEvent(time: 1.32, .control(command: "pause", args: ["build"], ok: true, peerUID: 0, peerPID: 9, error: nil)),
      RunEvent(time: 1.33, .controlRefused(peerUID: 65534, peerPID: 10)),
      RunEvent(time: 1.34, .paused(job: 0)),
      RunEvent(time: 1.35, .continued(job: 0)),
      Self.decided(1, .runs(.inputChanged(FileDifference(change: .changed, path: "in.txt", count: 2))), at: 1.36),
      Self.finished(1, missing: ["never.txt"], upToDate: false, at: 1.37),
      Self.finished(2, missing: [], upToDate: true, at: 1.38),
      runFinished(exitCode: 1, counts: [.failed: 1, .cancelled: 1, .succeeded: 1], at: 1.4),
    ]
  }

  static func decided(_ job: JobID, _ decision: RunDecision, at time: Double) -> RunEvent {
    var made = Transition(job: job, queue: 0, from: .pending, to: .ready)
    made.decision = decision
    return RunEvent(time: time, .transition(made))
  }

  static func finished(_ job: JobID, missing: [String], upToDate: Bool, at time: Double) -> RunEvent {
    var made = Transition(
      job: job, queue: 0, from: .executing, to: .finished, outcome: missing.isEmpty ? .succeeded : .failed,
      termination: .exited(0), duration: 0.25)
    made.missingOutputs = missing
    made.upToDate = upToDate
    return RunEvent(time: time, .transition(made))
  }

  @Test func everyWatchedLineReadsBackIntoTheEventItWasWrittenFrom() throws {
    let graph = makeGraph(jobs: ["build", "test", "lint"])
    let lines = ControlWatchTests.encoded(Self.allKinds(graph), graph: graph)
    var names = GraphEventNames(graph)
    let decoded = try lines.map { line in
      try #require(EventLine.event(from: try JSONValue.parse(line).get(), names: &names), "\(line)")
    }
    #expect(ControlWatchTests.encoded(decoded, graph: graph) == lines)
  }

  @Test func aWatchIsShownAsTheRunShowsItself() throws {
    let graph = makeGraph(jobs: ["build", "test", "lint"])
    let events = Self.allKinds(graph)
    for verbosity in HumanOptions.Verbosity.allCases {
      let options = HumanOptions(verbosity: verbosity)
      let own = (CapturedOutput(), CapturedOutput())
      HumanReporter(graph: graph, options: options, out: own.0.sink, err: own.1.sink).observe(events)
      let watched = (CapturedOutput(), CapturedOutput())
      let printer = WatchPrinter(graph: graph, options: options, out: watched.0.sink, err: watched.1.sink)
      for line in ControlWatchTests.encoded(events, graph: graph) { printer.show(try JSONValue.parse(line).get()) }
      own.0.sink.flush()
      watched.0.sink.flush()
      #expect(watched.0.text == own.0.text, "\(verbosity)")
      #expect(watched.1.text == own.1.text, "\(verbosity)")
    }
  }

  /// The run shows every `watch` when verbose; a watcher leaves out its own alone.
  @Test func aWatcherLeavesOutItsOwnWatchRequestAndShowsAnotherWatchers() throws {
    let graph = makeGraph(jobs: ["build"])
    let out = CapturedOutput()
    let printer = WatchPrinter(
      graph: graph, options: HumanOptions(verbosity: .verbose), out: out.sink, err: CapturedOutput().sink, ownPID: 9)
    let requests = [9, 10].map { pid in
      RunEvent(time: 0.5, .control(command: "watch", args: [], ok: true, peerUID: 0, peerPID: pid, error: nil))
    }
    for line in ControlWatchTests.encoded(requests, graph: graph) { printer.show(try JSONValue.parse(line).get()) }
    out.sink.flush()
    #expect(out.text == "  0.500s  control     watch  ok\n")
  }

  @Test func withoutTheGraphOrForAnUnknownEventLinesAreShownPlainly() throws {
    let out = CapturedOutput()
    let printer = WatchPrinter(graph: nil, options: HumanOptions(), out: out.sink, err: CapturedOutput().sink)
    for line in [
      #"{"t":1.5,"event":"transition","job":"build","queue":"ci","from":"ready","to":"executing","pids":[7]}"#,
      #"{"t":1.6,"event":"output","job":"build","stream":"stdout","text":"hello\n\nbye\n"}"#,
      #"{"t":1.7,"event":"control","command":"cancel","args":["build"],"ok":true}"#,
    ] {
      printer.show(try JSONValue.parse(line).get())
    }
    #expect(
      out.lines == [
        "  1.500s  transition  build  from ready · to executing · pids 7",
        "build | hello",
        "build |",
        "build | bye",
        "  1.700s  control     command cancel · args build · ok yes",
      ])
  }
}
