import OprunCore
import Testing

@testable import OprunRuntime

/// The event stream read back (``EventLine``): whatever the writer writes comes back as the
/// event it was written from, so that every view reading the stream sees the run's events.
@Suite struct ReportingEventLineTests {
  /// Two queues, and a matrix job's instance among plain jobs.
  static let graph: JobGraph = {
    var graph = makeGraph(
      jobs: ["build", "test[3.12,sqlite]", "lint \"quoted\"", "deploy"],
      queues: [QueueNode(name: "ci", maxConcurrent: 2), QueueNode(name: "net ✓", maxConcurrent: 1)],
      jobQueues: [0, 0, 1, 1])
    graph.jobs[1].instance = MatrixInstance(template: "test", axes: ["python", "db"], values: ["3.12", "sqlite"])
    return graph
  }()

  @Test func everyEventTheWriterWritesReadsBackAsItWas() throws {
    var random = Random(seed: 0x5EED)
    var names = GraphEventNames(Self.graph)
    var kindsSeen = Set<String>()
    for _ in 0..<20_000 {
      let event = random.event(in: Self.graph)
      let line = try #require(ControlWatchTests.encoded([event], graph: Self.graph).first)
      let value = try JSONValue.parse(line).get()
      let decoded = EventLine.event(from: value, names: &names)
      #expect(decoded == Self.asWritten(event), "\(line)")
      // One failure says it all: the first is the one to read.
      if decoded != Self.asWritten(event) { return }
      kindsSeen.insert(value["event"]?.stringValue ?? "")
    }
    #expect(kindsSeen.count == 16, "\(kindsSeen.sorted())")
  }

  @Test func aLineThatNamesWhatTheGraphHasNotGotOrLacksAFieldIsNoEvent() throws {
    var names = GraphEventNames(Self.graph)
    for line in [
      #"{"t":1,"event":"transition","job":"nobody","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[1]}"#,
      #"{"t":1,"event":"transition","job":"build","queue":"elsewhere","from":"ready","to":"executing","attempt":1}"#,
      #"{"t":1,"event":"transition","job":"build","queue":"ci","from":"ready","to":"gone"}"#,
      #"{"t":1,"event":"control","command":"cancel","args":["build"],"ok":"yes","peer_uid":1,"peer_pid":2}"#,
      #"{"t":1,"event":"watch-dropped"}"#, #"{"event":"warning","message":"no time"}"#,
    ] {
      #expect(EventLine.event(from: try JSONValue.parse(line).get(), names: &names) == nil, "\(line)")
    }
  }

  /// `event` as the stream carries it: a reason a job runs as its code and words, the rest as it is.
  static func asWritten(_ event: RunEvent) -> RunEvent {
    guard case .transition(var transition) = event.kind, case .runs(let reason)? = transition.decision else {
      return event
    }
    transition.decision = .runs(.recorded(code: reason.code, text: RunDecision.runs(reason).text(in: graph)))
    return RunEvent(time: event.time, .transition(transition))
  }
}

/// Events made of SplitMix64's numbers: every kind, each field filled or left out.
private struct Random {
  var generator: SplitMix64

  init(seed: UInt64) { generator = SplitMix64(seed: seed) }

  mutating func next() -> UInt64 { generator.next() }

  mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
  mutating func chance() -> Bool { next() & 1 == 0 }
  mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

  /// Seconds as the stream records them: to the microsecond.
  mutating func seconds() -> Double { TimeText.asRecorded(Double(below(100_000_000_000)) / 997) }

  mutating func text() -> String {
    let pieces = ["a", "Z", " ", "\"", "\\", "\n", "\t", "\u{1b}[31m", "✓", "日本", "🎉", "/", "{}", "\u{7f}", ""]
    return (0..<below(6)).map { _ in pick(pieces) }.joined()
  }

  mutating func termination() -> Termination {
    switch below(3) {
    case 0: .exited(Int32(below(256)) - 1)
    case 1: .signalled(Int32(1 + below(64)))
    default: .notStarted("posix_spawn: " + text())
    }
  }

  mutating func decision(in graph: JobGraph) -> RunDecision {
    let job = below(graph.jobs.count)
    let difference = FileDifference(change: pick([.added, .removed, .changed]), path: text(), count: 1 + below(3))
    let reasons: [RunReason] = [
      .noJournal, .notInLastRun, .lastOutcome(pick(Outcome.allCases)),
      .changed(Array(FingerprintPart.allCases.prefix(below(3)))),
      .dependencyRuns(job, origin: below(graph.jobs.count)), .dependencyChanged(job), .unreadable, .noRecord,
      .inputChanged(difference), .inputsChanged, .outputChanged(difference), .outputsChanged, .outputMissing(text()),
      .unreadableFile(text(), isInput: chance()), .dependencyRan(job),
      .dependencyResultChanged(job, hasOutputs: chance()),
      .forced,
    ]
    return pick([.resumed, .upToDate, .runs(pick(reasons))])
  }

  mutating func transition(in graph: JobGraph) -> Transition {
    let job = below(graph.jobs.count)
    let (from, to) = pick([
      (JobState.pending, JobState.ready), (.ready, .executing), (.executing, .ready), (.executing, .finished),
      (.ready, .finished), (.pending, .finished),
    ])
    var transition = Transition(
      job: job, queue: graph.jobs[job].queue, from: from, to: to, attempt: 1 + below(3))
    if chance() { transition.decision = decision(in: graph) }
    switch (from, to) {
    case (.pending, .ready):
      if chance() { transition.readyAfter = below(graph.jobs.count) }
    case (_, .executing):
      transition.pids = (0...below(3)).map { _ in Int32(1 + below(4_000_000)) }
    case (.executing, .ready):
      if chance() { transition.termination = termination() }
      if chance() { transition.missingOutputs = (0...below(2)).map { _ in text() } }
      if chance() { transition.usage = usage() }
    default:
      transition.outcome = pick(Outcome.allCases)
      if chance() { transition.termination = termination() }
      transition.duration = seconds()
      transition.resumed = below(4) == 0
      transition.upToDate = below(4) == 0
      if chance() { transition.missingOutputs = (0...below(2)).map { _ in text() } }
      if chance() { transition.usage = usage() }
    }
    return transition
  }

  /// CPU time as the stream records it (to the millisecond), any peak, either source.
  mutating func usage() -> ResourceUsage {
    ResourceUsage(
      cpuSeconds: Double(below(10_000_000)) / 1000, peakMemory: below(1 << 40), source: pick([.process, .cgroup]))
  }

  mutating func event(in graph: JobGraph) -> RunEvent {
    let job = below(graph.jobs.count)
    let queue = below(graph.queues.count)
    let kind: RunEvent.Kind
    switch below(17) {
    case 0:
      let queues = graph.queues.map { QueueNode(name: $0.name, maxConcurrent: 1 + below(64)) }
      kind = .runStarted(queues: queues, jobs: graph.jobs.count, run: text(), control: chance() ? text() : nil)
    case 1, 2, 3: kind = .transition(transition(in: graph))
    case 4: kind = .cancelled(job: job, reason: pick(CancelReason.allCases))
    case 5: kind = .queueState(queue: queue, state: pick([.suspended, .resumed]))
    case 6: kind = .limit(queue: queue, maxConcurrent: 1 + below(1000))
    case 7: kind = .priority(job: job, priority: pick(Priority.allCases))
    case 8:
      let ok = chance()
      kind = .control(
        command: pick(["status", "watch", "cancel", "limit", text()]), args: (0..<below(3)).map { _ in text() }, ok: ok,
        peerUID: UInt32(truncatingIfNeeded: next()), peerPID: Int32(1 + below(4_000_000)),
        error: ok ? nil : text())
    case 9: kind = .controlRefused(peerUID: UInt32(truncatingIfNeeded: next()), peerPID: Int32(1 + below(4_000_000)))
    case 10: kind = .paused(job: job)
    case 11: kind = .continued(job: job)
    case 12: kind = .output(job: job, stream: pick([.stdout, .stderr]), text: Array((text() + "\n").utf8))
    case 13:
      kind =
        chance()
        ? .completionStarted(job: job, pid: Int32(1 + below(99_999)))
        : .completion(job: job, termination: termination())
    case 14: kind = .warning(text())
    case 15: kind = .waitingForOtherRun(job: job, pid: chance() ? Int32(1 + below(4_000_000)) : nil)
    default:
      kind = .runFinished(
        exitCode: Int32(below(256)), counts: Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0, below(9)) }))
    }
    return RunEvent(time: seconds(), kind)
  }
}
