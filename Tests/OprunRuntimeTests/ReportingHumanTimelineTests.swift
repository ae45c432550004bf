import OprunCore
import OprunRuntime
import Testing

/// The human timeline: one aligned line per transition, the outcome and duration on
/// `finished`, filtered by verbosity, coloured only when asked.
@Suite struct ReportingHumanTimelineTests {
  let graph = makeGraph(jobs: ["build", "test", "deploy"])

  func report(_ events: [RunEvent], options: HumanOptions = HumanOptions()) -> (out: [String], err: [String]) {
    let out = CapturedOutput()
    let err = CapturedOutput()
    HumanReporter(graph: graph, options: options, out: out.sink, err: err.sink).observe(events)
    return (out.lines, err.lines)
  }

  @Test func aSucceedingJobShowsReadyExecutingWithItsPidAndFinishedWithItsDuration() {
    let lines = report(lifecycle(0, start: 0.003, end: 1.213, pid: 4242)).out
    #expect(
      lines == [
        "  0.003s  ready       build",
        "  0.003s  executing   build   pid 4242",
        "  1.213s  finished    build   succeeded in 1.21s",
      ])
  }

  @Test func severalCommandsShowTheirPidsInCommandOrder() {
    let lines = report([transition(1, .ready, .executing, pids: [4243, 4242], at: 0.5)]).out
    #expect(lines == ["  0.500s  executing   test    pids 4243 4242"])
  }

  @Test func aFailedAttemptGoingBackToItsQueueSaysHowItEnded() {
    let lines = report([
      transition(1, .executing, .ready, attempt: 2, termination: .exited(4), duration: 0.2, at: 1.5)
    ]).out
    #expect(lines == ["  1.500s  ready       test    retrying: attempt 1 ended with exit 4"])
  }

  @Test func aRetryShowsItsAttempt() {
    let lines = report([
      transition(1, .ready, .executing, attempt: 2, pids: [7], at: 2),
      transition(
        1, .executing, .finished, attempt: 2, outcome: .succeeded, termination: .exited(0), duration: 0.5, at: 2.5),
    ]).out
    #expect(
      lines == [
        "  2.000s  executing   test    pid 7 · attempt 2",
        "  2.500s  finished    test    succeeded in 0.50s · attempt 2",
      ])
  }

  @Test(arguments: [
    (Outcome.failed, Termination.exited(2), "failed (exit 2) in 0.30s"),
    (.failed, .signalled(11), "failed (signal SIGSEGV) in 0.30s"),
    (.timedOut, .signalled(15), "timed out after 0.30s"),
  ])
  func failuresShowHowTheCommandEnded(outcome: Outcome, termination: Termination, detail: String) {
    let lines = report([
      transition(1, .executing, .finished, outcome: outcome, termination: termination, duration: 0.3, at: 1.5)
    ]).out
    #expect(lines == ["  1.500s  finished    test    " + detail])
  }

  @Test func aCancelledJobShowsTheCancellationAndItsReasonOnFinishing() {
    let lines = report([
      transition(2, .ready, .executing, pids: [99], at: 1.0),
      RunEvent(time: 1.25, .cancelled(job: 2, reason: .interrupt)),
      transition(2, .executing, .finished, outcome: .cancelled, termination: .signalled(2), duration: 0.5, at: 1.5),
    ]).out
    #expect(
      lines == [
        "  1.000s  executing   deploy  pid 99",
        "  1.250s  cancelled   deploy  (interrupt)",
        "  1.500s  finished    deploy  cancelled (interrupt) after 0.50s",
      ])
  }

  @Test func aJobCancelledBeforeStartingFinishesWithoutADuration() {
    let lines = report([
      RunEvent(time: 0.7, .cancelled(job: 2, reason: .failurePolicy)),
      transition(2, .pending, .ready, at: 0.7),
      transition(2, .ready, .finished, outcome: .cancelled, duration: 0, at: 0.701),
    ]).out
    #expect(
      lines == [
        "  0.700s  cancelled   deploy  (failure-policy)",
        "  0.700s  ready       deploy",
        "  0.701s  finished    deploy  cancelled (failure-policy)",
      ])
  }

  @Test func aSkippedJobSaysSkipped() {
    let lines = report([
      RunEvent(time: 1.501, .cancelled(job: 2, reason: .dependencyFailed)),
      transition(2, .ready, .finished, outcome: .skipped, duration: 0, at: 1.502),
    ]).out
    #expect(lines == ["  1.501s  cancelled   deploy  (dependency-failed)", "  1.502s  finished    deploy  skipped"])
  }

  @Test func aResumedJobSaysResumed() {
    let lines = report([
      transition(0, .ready, .finished, outcome: .succeeded, duration: 0, resumed: true, at: 0.002)
    ]).out
    #expect(lines == ["  0.002s  finished    build   succeeded (resumed)"])
  }

  @Test func anUpToDateJobIsOneLineAndVerboseAddsTheReadyLineThatSaysSo() {
    let events = upToDate(0, at: 0.002) + lifecycle(1, start: 0.003, end: 0.5, pid: 7)
    #expect(
      report(events).out == [
        "  0.002s  finished    build   up to date",
        "  0.003s  ready       test",
        "  0.003s  executing   test    pid 7",
        "  0.500s  finished    test    succeeded in 0.50s",
      ])
    #expect(
      report(upToDate(0, at: 0.002), options: HumanOptions(verbosity: .verbose)).out == [
        "  0.002s  ready       build   up to date",
        "  0.002s  finished    build   up to date",
      ])
  }

  @Test func queueLimitPriorityAndCompletionEventsHaveTheirOwnLines() {
    let lines = report([
      RunEvent(time: 1, .queueState(queue: 0, state: .suspended)),
      RunEvent(time: 2, .limit(queue: 0, maxConcurrent: 4)),
      RunEvent(time: 3, .priority(job: 2, priority: .veryHigh)),
      RunEvent(time: 4, .completionStarted(job: 1, pid: 300)),
      RunEvent(time: 5, .completion(job: 1, termination: .exited(3))),
      RunEvent(time: 6, .queueState(queue: 0, state: .resumed)),
    ]).out
    #expect(
      lines == [
        "  1.000s  queue       ci      suspended",
        "  2.000s  limit       ci      max-concurrent 4",
        "  3.000s  priority    deploy  veryHigh",
        "  5.000s  completion  test    exit 3",
        "  6.000s  queue       ci      resumed",
      ])
  }

  /// SPEC §8: each control request taken has a line (`status` and `watch` only when
  /// verbose: they change nothing); so do a pause and a continue.
  @Test func controlRequestsPausesAndContinuesHaveTheirOwnLines() {
    let events = [
      RunEvent(time: 1, .control(command: "cancel", args: ["build"], ok: true, peerUID: 1000, peerPID: 5, error: nil)),
      RunEvent(
        time: 2,
        .control(
          command: "pause", args: ["tset"], ok: false, peerUID: 1000, peerPID: 6,
          error: "unknown job 'tset' (did you mean 'test'?)")),
      RunEvent(time: 3, .control(command: "status", args: [], ok: true, peerUID: 1000, peerPID: 7, error: nil)),
      RunEvent(time: 4, .paused(job: 2)),
      RunEvent(time: 5, .continued(job: 2)),
    ]
    #expect(
      report(events).out == [
        "  1.000s  control     cancel build  ok",
        "  2.000s  control     pause tset  refused: unknown job 'tset' (did you mean 'test'?)",
        "  4.000s  paused      deploy",
        "  5.000s  continued   deploy",
      ])
    #expect(report(events, options: HumanOptions(verbosity: .verbose)).out[2] == "  3.000s  control     status  ok")
    #expect(report(events, options: HumanOptions(verbosity: .quiet)).out.isEmpty)
  }

  /// SPEC §8: "A refused peer's request is not read and makes no `control` event; the
  /// refusal is a `control-refused` event and one line on standard error."
  @Test func aRefusedPeerIsOneLineOnTheErrorSink() {
    let (out, err) = report([RunEvent(time: 1, .controlRefused(peerUID: 1001, peerPID: 4242))])
    #expect(out.isEmpty)
    #expect(err == ["oprun: warning: control: refused a request from uid 1001 (pid 4242): not this run's user"])
  }

  @Test func quietShowsOnlyFailuresAndTheSummary() {
    var events = lifecycle(0, start: 0, end: 1, pid: 1)
    events += lifecycle(1, start: 1, end: 1.5, pid: 2, outcome: .failed, termination: .exited(1))
    events.append(RunEvent(time: 1.6, .cancelled(job: 2, reason: .dependencyFailed)))
    events.append(transition(2, .ready, .finished, outcome: .skipped, duration: 0, at: 1.6))
    events.append(runFinished(exitCode: 1, at: 1.7))
    let lines = report(events, options: HumanOptions(verbosity: .quiet)).out
    #expect(
      lines == [
        "  1.500s  finished    test    failed (exit 1) in 0.50s",
        "── test: failed (exit 1) in 0.50s",
        "── summary: 3 jobs · 1 succeeded · 1 failed · 1 skipped · 1.70s wall · exit 1",
      ])
  }

  @Test func verboseAddsTheRunAttemptsQueuesHowCommandsRunAndCompletionPids() {
    let lines = report(
      [
        RunEvent(
          time: 0,
          .runStarted(
            queues: [QueueNode(name: "ci", maxConcurrent: 2)], jobs: 3, run: "r1", control: "/run/oprun/1.sock")),
        transition(0, .ready, .executing, pids: [5], at: 0.1),
        transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 0.2, at: 0.3),
        RunEvent(time: 0.31, .completionStarted(job: 0, pid: 6)),
      ], options: HumanOptions(verbosity: .verbose)
    ).out
    #expect(
      lines == [
        "  0.000s  started     ci      3 jobs · queues ci ×2 · run r1 · control /run/oprun/1.sock",
        "  0.100s  executing   build   pid 5 · attempt 1 · queue ci · exec direct",
        "  0.300s  finished    build   succeeded in 0.20s · attempt 1",
        "  0.310s  completion  build   pid 6",
      ])
  }

  @Test func normalVerbosityLeavesOutTheRunStartAndCompletionStarts() {
    let lines = report([
      RunEvent(
        time: 0, .runStarted(queues: [QueueNode(name: "ci", maxConcurrent: 2)], jobs: 3, run: "r1", control: nil)),
      RunEvent(time: 0.31, .completionStarted(job: 0, pid: 6)),
    ]).out
    #expect(lines.isEmpty)
  }

  @Test func longJobNamesWidenTheColumnUpToTwentyFourCharacters() {
    let long = String(repeating: "x", count: 30)
    let wide = makeGraph(jobs: ["a", long, "b"])
    let out = CapturedOutput()
    HumanReporter(graph: wide, options: HumanOptions(), out: out.sink, err: CapturedOutput().sink).observe([
      transition(0, .ready, .executing, pids: [1], at: 0), transition(1, .ready, .executing, pids: [2], at: 0),
    ])
    #expect(
      out.lines == [
        "  0.000s  executing   a" + String(repeating: " ", count: 23) + "  pid 1",
        "  0.000s  executing   " + long + "  pid 2",
      ])
  }

  @Test func coloursAreOffUnlessAsked() {
    let plain = report(lifecycle(0, start: 0, end: 1, pid: 1)).out.joined()
    #expect(!plain.contains("\u{1B}"))
  }

  @Test func colouredOutcomesAreGreenRedAndYellowWithDimTimes() {
    let colour = HumanOptions(color: true)
    let succeeded = report(lifecycle(0, start: 0, end: 1, pid: 1), options: colour).out.last
    #expect(succeeded == "\u{1B}[2m  1.000s\u{1B}[0m  finished    build   \u{1B}[32msucceeded\u{1B}[0m in 1.00s")
    let failed = report(
      [transition(1, .executing, .finished, outcome: .failed, termination: .exited(2), duration: 1, at: 1)],
      options: colour
    ).out.last
    #expect(failed?.contains("\u{1B}[31mfailed (exit 2)\u{1B}[0m in 1.00s") == true)
    let skipped = report(
      [transition(2, .ready, .finished, outcome: .skipped, duration: 0, at: 1)], options: colour
    ).out.last
    #expect(skipped?.hasSuffix("\u{1B}[33mskipped\u{1B}[0m") == true)
  }

  @Test func warningsGoToTheErrorSinkAsOneLine() {
    let (out, err) = report([RunEvent(time: 0, .warning("cannot write .oprun/runs: read-only file system"))])
    #expect(out.isEmpty)
    #expect(err == ["oprun: warning: cannot write .oprun/runs: read-only file system"])
  }

  @Test func everyLineIsVisibleAsSoonAsItsEventIsObserved() {
    let out = CapturedOutput()
    let reporter = HumanReporter(graph: graph, options: HumanOptions(), out: out.sink, err: CapturedOutput().sink)
    reporter.observe(transition(0, .pending, .ready, at: 0))
    #expect(out.lines == ["  0.000s  ready       build"])
  }
}
