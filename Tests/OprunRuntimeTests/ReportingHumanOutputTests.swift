import OprunCore
import OprunRuntime
import Testing

/// Job output in the human stream: prefixed lines, grouped blocks, raw bytes.
@Suite struct ReportingHumanOutputTests {
  let graph = makeGraph(jobs: ["build", "test"])

  func report(_ events: [RunEvent], options: HumanOptions) -> CapturedOutput {
    let out = CapturedOutput()
    HumanReporter(graph: graph, options: options, out: out.sink, err: CapturedOutput().sink).observe(events)
    return out
  }

  @Test func prefixedModeShowsEachLineAfterItsJobsName() {
    let out = report(
      [
        output(0, "compiling\nlinking\n", at: 0.1),
        output(1, "warning: flaky\n", stream: .stderr, at: 0.2),
        output(0, "\ndone", at: 0.3),
      ], options: HumanOptions(outputMode: .prefixed))
    #expect(out.text == "build | compiling\nbuild | linking\ntest | warning: flaky\nbuild |\nbuild | done\n")
  }

  @Test func prefixedLinesAreDimmedWhenColoured() {
    let out = report([output(0, "hi\n", at: 0)], options: HumanOptions(outputMode: .prefixed, color: true))
    #expect(out.text == "\u{1B}[2mbuild |\u{1B}[0m hi\n")
  }

  @Test func groupedModeHoldsAJobsOutputUntilItFinishes() {
    let out = CapturedOutput()
    let reporter = HumanReporter(
      graph: graph, options: HumanOptions(outputMode: .grouped), out: out.sink, err: CapturedOutput().sink)
    reporter.observe([
      transition(0, .ready, .executing, pids: [10], at: 0),
      transition(1, .ready, .executing, pids: [11], at: 0),
      output(0, "b1\n", at: 0.1),
      output(1, "t1\n", stream: .stderr, at: 0.2),
      output(0, "b2", at: 0.3),
    ])
    #expect(out.lines == ["  0.000s  executing   build  pid 10", "  0.000s  executing   test   pid 11"])
    reporter.observe(
      transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 1, at: 1))
    #expect(
      out.lines.dropFirst(2) == [
        "  1.000s  finished    build  succeeded in 1.00s",
        "── build",
        "b1",
        "b2",
      ])
  }

  @Test func groupedModeWrapsBlocksInGitHubActionsGroups() {
    let out = report(
      [
        output(1, "t1\nt2\n", at: 0.2),
        transition(1, .executing, .finished, outcome: .failed, termination: .exited(1), duration: 1, at: 1),
      ], options: HumanOptions(outputMode: .grouped, githubActions: true))
    #expect(
      out.lines == [
        "  1.000s  finished    test   failed (exit 1) in 1.00s", "::group::test", "t1", "t2", "::endgroup::",
      ])
  }

  @Test func groupedModePrintsNoBlockForAJobWithoutOutput() {
    let out = report(
      [transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 1, at: 1)],
      options: HumanOptions(outputMode: .grouped))
    #expect(out.lines == ["  1.000s  finished    build  succeeded in 1.00s"])
  }

  @Test func groupedOutputArrivingAfterTheJobFinishedIsAFurtherBlockWhenTheRunEnds() {
    let out = report(
      [
        output(0, "b1\n", at: 0.5),
        transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 1, at: 1),
        output(0, "from the background\n", at: 2),
        output(0, "and more", at: 2.5),
        transition(1, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 3, at: 3),
        runFinished(exitCode: 0, at: 4),
      ], options: HumanOptions(outputMode: .grouped))
    #expect(
      Array(out.lines.prefix(6)) == [
        "  1.000s  finished    build  succeeded in 1.00s", "── build", "b1",
        "  3.000s  finished    test   succeeded in 3.00s", "── build", "from the background",
      ])
    #expect(out.lines[6] == "and more")
    #expect(out.lines[7].hasPrefix("── summary"))
  }

  @Test func groupedOutputOfACompletionIsABlockWhenTheCompletionEnds() {
    let out = report(
      [
        transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 1, at: 1),
        output(0, "notified\n", at: 1.5),
        RunEvent(time: 2, .completion(job: 0, termination: .exited(0))),
      ], options: HumanOptions(outputMode: .grouped))
    #expect(
      out.lines == [
        "  1.000s  finished    build  succeeded in 1.00s", "  2.000s  completion  build  exit 0", "── build",
        "notified",
      ])
  }

  @Test func groupedOutputOfJobsThatNeverFinishedIsShownAtTheEnd() {
    let out = report(
      [output(1, "t\n", at: 0.1), output(0, "b\n", at: 0.2), runFinished(exitCode: 1, at: 1)],
      options: HumanOptions(outputMode: .grouped))
    #expect(out.lines.prefix(4) == ["── build", "b", "── test", "t"])
  }

  @Test func groupedOutputIsShownEvenWhenQuiet() {
    let out = report(
      [
        output(0, "b\n", at: 0.1),
        transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 1, at: 1),
      ], options: HumanOptions(outputMode: .grouped, verbosity: .quiet))
    #expect(out.lines == ["── build", "b"])
  }

  @Test func rawModePassesBytesThroughUnchanged() {
    let bytes: [UInt8] = [0x1B, 0x5B, 0x31, 0x6D, 0xFF, 0x00, 0x0A, 0x61, 0x0D, 0x0A]
    let out = report(
      [RunEvent(time: 0, .output(job: 0, stream: .stdout, text: bytes))], options: HumanOptions(outputMode: .raw))
    #expect(out.bytes == bytes)
  }

  @Test func rawModeStartsAnotherJobsLineOnALineOfItsOwn() {
    let out = report(
      [
        output(0, "50%\r", at: 0.1), output(0, "60%\r", at: 0.2), output(1, "test line\n", at: 0.3),
        output(0, "done\n", at: 0.4), output(1, "partial", at: 0.5), output(1, " and the rest\n", at: 0.6),
      ], options: HumanOptions(outputMode: .raw))
    #expect(out.text == "50%\r60%\r\ntest line\ndone\npartial and the rest\n")
  }

  @Test func rawModeStartsTheNextTimelineLineOnALineOfItsOwn() {
    let out = report(
      [
        output(0, "progress 50%", at: 0.1),
        transition(1, .pending, .ready, at: 0.2),
      ], options: HumanOptions(outputMode: .raw))
    #expect(out.text == "progress 50%\n  0.200s  ready       test\n")
  }

  /// While an interactive job executes, it has the terminal: its own `executing` line, other
  /// jobs' lines and oprun's own (warnings too) wait, in order, until it stops, then come
  /// before its `finished` line.
  @Test func anInteractiveJobHoldsEveryOtherLineBackUntilItFinishes() {
    var graph = makeGraph(jobs: ["ask", "build"])
    graph.jobs[0].interactive = true
    let out = CapturedOutput()
    let err = CapturedOutput()
    let reporter = HumanReporter(graph: graph, options: HumanOptions(), out: out.sink, err: err.sink)
    reporter.observe([
      transition(1, .ready, .executing, pids: [11], at: 0.1),
      transition(0, .ready, .executing, pids: [10], at: 0.2),
    ])
    out.sink.flush()
    let before = out.text
    #expect(before.hasSuffix("executing   build  pid 11\n"), "the prompt may be out before its line")
    reporter.observe([
      output(1, "compiling\n", at: 0.3),
      RunEvent(time: 0.4, .warning("disk nearly full")),
      transition(1, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 1, at: 0.5),
    ])
    out.sink.flush()
    err.sink.flush()
    #expect(out.text == before, "nothing is written over the prompt")
    #expect(err.text.isEmpty)
    reporter.observe(
      transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), duration: 2, at: 2.2))
    out.sink.flush()
    err.sink.flush()
    let after = out.text.dropFirst(before.count).split(separator: "\n").map(String.init)
    #expect(after.count == 4)
    #expect(after.first?.contains("executing   ask    pid 10") == true)
    #expect(after[1] == "build | compiling")
    #expect(after[2].contains("finished    build"))
    #expect(after[3].contains("finished    ask"))
    #expect(err.text == "oprun: warning: disk nearly full\n")
  }
}
