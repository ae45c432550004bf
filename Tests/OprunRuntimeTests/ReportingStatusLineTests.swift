import OprunCore
import OprunRuntime
import Testing

/// The live status line on a terminal (SPEC §5): what it says, how it fits the width, and that
/// it is erased before every other line and gone when the run ends.
@Suite struct ReportingStatusLineTests {
  let graph = makeGraph(jobs: ["build", "lint", "test"])
  let erase = "\r\u{1B}[K"

  func report(
    _ events: [RunEvent], columns: Int? = 80, mode: HumanOptions.OutputMode = .prefixed,
    verbosity: HumanOptions.Verbosity = .normal, graph: JobGraph? = nil
  ) -> (reporter: HumanReporter, out: CapturedOutput) {
    let out = CapturedOutput()
    let reporter = HumanReporter(
      graph: graph ?? self.graph,
      options: HumanOptions(outputMode: mode, verbosity: verbosity, statusLineColumns: columns),
      out: out.sink, err: CapturedOutput().sink)
    reporter.observe(events)
    out.sink.flush()
    return (reporter, out)
  }

  /// The text after the last erase: what the terminal's last line shows.
  func shownLine(_ out: CapturedOutput) -> String {
    String(out.text.components(separatedBy: erase).last ?? "")
  }

  @Test func theLineCountsFinishedJobsAndNamesTheRunningOnesInTheOrderTheyStarted() {
    let (_, out) = report([
      transition(1, .ready, .executing, pids: [11], at: 0.1),
      transition(0, .ready, .executing, pids: [10], at: 0.2),
      transition(2, .ready, .executing, pids: [12], at: 0.3),
      transition(2, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 1, at: 3.24),
    ])
    #expect(shownLine(out).hasPrefix("  3.240s  finished    test"))
    #expect(shownLine(out).hasSuffix("\n[1/3] running: lint, build · 3.2s"))
  }

  @Test func everyLineIsWrittenAfterTheStatusLineIsErasedAndNeverOnIt() {
    let (_, out) = report([
      transition(0, .ready, .executing, pids: [10], at: 0),
      output(0, "compiling\n", at: 0.5),
      output(0, "linking\n", at: 0.6),
    ])
    let pieces = out.text.components(separatedBy: erase)
    #expect(pieces.count == 3)
    // Each piece but the last ends with a status line, which the next piece's erase removes.
    #expect(pieces[1] == "build | compiling\n[0/3] running: build · 0.5s")
    #expect(pieces[2] == "build | linking\n[0/3] running: build · 0.6s")
  }

  @Test func theLineIsGoneWhenTheRunFinishesAndTheSummaryIsLast() {
    let (_, out) = report(
      lifecycle(0, start: 0, end: 1, pid: 10) + [runFinished(exitCode: 0, counts: [.succeeded: 1], at: 1.5)])
    let last = shownLine(out)
    #expect(!last.contains("running"))
    #expect(last.hasSuffix("── summary: 3 jobs · 1 succeeded · 1.50s wall · exit 0\n"))
  }

  @Test func aRefreshRedrawsTheLineWithTheTimeNowAndFollowsANewWidth() {
    let (reporter, out) = report([transition(0, .ready, .executing, pids: [10], at: 0)])
    reporter.refreshStatusLine(at: 75.2, columns: 20)
    out.sink.flush()
    #expect(shownLine(out) == "[0/3] running: 1 jo", "cut one short of the width")
    reporter.refreshStatusLine(at: 75.2, columns: 40)
    out.sink.flush()
    #expect(shownLine(out) == "[0/3] running: build · 1m15s")
  }

  @Test func namesThatDoNotFitAreCounted() {
    let names = (1...12).map { "job-number-\($0)" }
    let graph = makeGraph(jobs: names, queues: [QueueNode(name: "ci", maxConcurrent: 12)])
    let started = names.indices.map { transition($0, .ready, .executing, pids: [Int32($0)], at: 1) }
    let (_, out) = report(started, columns: 60, graph: graph)
    let line = shownLine(out).split(separator: "\n").last.map(String.init) ?? ""
    #expect(line == "[0/12] running: job-number-1, job-number-2, +10 more · 1.0s")
    #expect(line.count < 60)
  }

  @Test func pausedJobsAndSuspendedQueuesAreOnTheLineUntilTheyGoOn() {
    let graph = makeGraph(
      jobs: ["build", "lint", "test"], queues: [QueueNode(name: "main", maxConcurrent: 3), QueueNode(name: "io", maxConcurrent: 1)])
    let (reporter, out) = report(
      [
        transition(0, .ready, .executing, pids: [10], at: 0.1),
        transition(1, .ready, .executing, pids: [11], at: 0.2),
        RunEvent(time: 0.5, .paused(job: 1)),
        RunEvent(time: 0.6, .queueState(queue: 1, state: .suspended)),
      ], graph: graph)
    #expect(shownLine(out).hasSuffix("\n[0/3] running: build · paused: lint · suspended: io · 0.6s"))
    reporter.observe(RunEvent(time: 0.7, .continued(job: 1)))
    reporter.observe(RunEvent(time: 0.8, .queueState(queue: 1, state: .resumed)))
    out.sink.flush()
    #expect(shownLine(out).hasSuffix("\n[0/3] running: build, lint · 0.8s"))
  }

  @Test func aJobWaitingForAnotherRunIsOnTheLineUntilItLeavesReady() {
    let graph = makeGraph(jobs: ["build", "gen", "test"])
    let (reporter, out) = report(
      [
        transition(0, .ready, .executing, pids: [10], at: 0.1),
        RunEvent(time: 0.2, .waitingForOtherRun(job: 1, pid: 4242)),
      ], graph: graph)
    #expect(shownLine(out).hasSuffix("\n[0/3] running: build · waiting for another oprun: gen · 0.2s"))
    reporter.observe(transition(1, .ready, .finished, outcome: .succeeded, at: 0.4))
    out.sink.flush()
    #expect(shownLine(out).hasSuffix("\n[1/3] running: build · 0.4s"))
  }

  @Test func aRunBeingCancelledSaysWhatItWaitsFor() {
    let (reporter, out) = report([
      transition(0, .ready, .executing, pids: [10], at: 0.1),
      RunEvent(time: 1, .cancelling(signal: 2, jobs: 3, waiting: [0], grace: 5, killing: false)),
    ])
    #expect(out.text.contains("interrupted  cancelling 3 jobs; waiting up to 5s for build — Ctrl-C again to kill now\n"))
    #expect(shownLine(out).hasSuffix("\n[0/3] cancelling: build · 1.0s"))
    reporter.observe(RunEvent(time: 2, .cancelling(signal: 2, jobs: 3, waiting: [0], grace: 5, killing: true)))
    out.sink.flush()
    #expect(out.text.contains("interrupted  again: killing build now\n"))
  }

  @Test func noLineWithoutATerminalOrWhenQuiet() {
    let events = [transition(0, .ready, .executing, pids: [10], at: 0)]
    #expect(!report(events, columns: nil).out.text.contains("running:"))
    #expect(!report(events, verbosity: .quiet).out.text.contains("running:"))
  }

  @Test func aRawLineLeftOpenIsNotJoinedByTheStatusLine() {
    let (_, out) = report(
      [transition(0, .ready, .executing, pids: [10], at: 0), output(0, "50%\r", at: 0.5)], mode: .raw)
    #expect(out.text.hasSuffix("50%\r"))
  }

  @Test func noLineWhileAnInteractiveJobIsReadyOrExecuting() {
    var graph = makeGraph(jobs: ["edit", "build"])
    graph.jobs[0].interactive = true
    let (reporter, out) = report(
      [transition(1, .ready, .executing, pids: [11], at: 0), transition(0, .pending, .ready, at: 0.1)], graph: graph)
    #expect(out.text.hasSuffix("ready       edit\n"))
    reporter.observe(transition(0, .ready, .executing, pids: [10], at: 0.2))
    reporter.refreshStatusLine(at: 1, columns: nil)
    out.sink.flush()
    #expect(!shownLine(out).contains("running:"))
    reporter.observe(
      transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 1, at: 1.2))
    out.sink.flush()
    #expect(shownLine(out).hasSuffix("[1/2] running: build · 1.2s"))
  }
}
