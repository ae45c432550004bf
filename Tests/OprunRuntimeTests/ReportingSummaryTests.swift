import OprunCore
import OprunRuntime
import Testing

/// The summary: computed from the events, then rendered at `run-finished`.
@Suite struct ReportingSummaryTests {
  let graph = makeGraph(jobs: ["fetch", "build", "test", "deploy", "lint", "docs"])

  var mixedRun: [RunEvent] {
    var events = lifecycle(0, start: 0, end: 0.5, pid: 1)
    events += lifecycle(1, start: 0.5, end: 2.0, pid: 2)
    events += lifecycle(4, start: 0.5, end: 0.6, pid: 5)
    events += [output(2, (1...12).map { "line \($0)" }.joined(separator: "\n") + "\n", at: 2.1)]
    events += lifecycle(2, start: 2.0, end: 2.3, pid: 3, outcome: .failed, termination: .exited(2))
    events += [output(5, "docs output\n", at: 2.05)]
    events += lifecycle(5, start: 2.0, end: 3.0, pid: 6, outcome: .timedOut, termination: .signalled(15))
    events += [
      RunEvent(time: 2.3, .cancelled(job: 3, reason: .dependencyFailed)),
      transition(3, .ready, .finished, outcome: .skipped, duration: 0, at: 2.31),
      runFinished(exitCode: 1, counts: [.succeeded: 3, .failed: 1, .timedOut: 1, .skipped: 1], at: 3.42),
    ]
    return events
  }

  @Test func countsEveryOutcomeIncludingThoseThatDidNotOccur() {
    let summary = RunSummary(jobCount: 6, events: mixedRun)
    #expect(summary.counts == [.succeeded: 3, .failed: 1, .cancelled: 0, .skipped: 1, .timedOut: 1])
    #expect(summary.wallTime == 3.42)
    #expect(summary.exitCode == 1)
    #expect(summary.results.map(\.job) == [0, 1, 4, 2, 5, 3])
  }

  @Test func failuresAreFailedAndTimedOutJobsInTheOrderTheyFinished() {
    let summary = RunSummary(jobCount: 6, events: mixedRun)
    #expect(summary.failures.map(\.job) == [2, 5])
    #expect(summary.failures.map(\.termination) == [.exited(2), .signalled(15)])
  }

  @Test func aFailureKeepsItsLastTenLinesOfOutput() {
    let summary = RunSummary(jobCount: 6, events: mixedRun)
    let tail = summary.failureTails[2]
    #expect(tail?.lines.map { String(decoding: $0, as: UTF8.self) } == (3...12).map { "line \($0)" })
    #expect(tail?.omittedLines == 2)
    #expect(summary.failureTails[5]?.lines == [Array("docs output".utf8)])
  }

  @Test func jobsThatDidNotFailKeepNoOutput() {
    let summary = RunSummary(
      jobCount: 1,
      events: [output(0, "ok\n", at: 0)] + lifecycle(0, start: 0, end: 1, pid: 1) + [output(0, "late\n", at: 2)])
    #expect(summary.failureTails.isEmpty)
  }

  @Test func outputAfterAFailureStillJoinsItsTail() {
    let summary = RunSummary(
      jobCount: 1,
      events: lifecycle(0, start: 0, end: 1, pid: 1, outcome: .failed, termination: .exited(1)) + [
        output(0, "late\n", at: 2)
      ])
    #expect(summary.failureTails[0]?.lines == [Array("late".utf8)])
  }

  @Test func slowestJobsAreTheLongestThatRanWithTiesInManifestOrder() {
    var events = mixedRun
    events += lifecycle(0, start: 4, end: 5.5, pid: 9)
    let summary = RunSummary(jobCount: 6, events: events)
    #expect(summary.slowest(3).map(\.job) == [0, 1, 5])
    #expect(summary.slowest().count == 5)
    #expect(!summary.slowest(10).contains { $0.job == 3 })
  }

  @Test func theSummaryRendersFailuresWithTheirTailsThenTheSlowestThenTheCounts() {
    let out = CapturedOutput()
    let reporter = HumanReporter(graph: graph, options: HumanOptions(), out: out.sink, err: CapturedOutput().sink)
    reporter.observe(mixedRun)
    let summary = out.lines.drop { !$0.hasPrefix("── test:") }
    #expect(
      Array(summary) == [
        "── test: failed (exit 2) in 0.30s",
        "    … 2 earlier lines",
      ] + (3...12).map { "    line \($0)" } + [
        "── docs: timed out after 1.00s",
        "    docs output",
        "── slowest: build 1.50s · docs 1.00s · fetch 0.50s · test 0.30s · lint 0.10s",
        "── summary: 6 jobs · 3 succeeded · 1 failed · 1 timed out · 1 skipped · 3.42s wall · exit 1",
      ])
    #expect(reporter.summary == RunSummary(jobCount: 6, events: mixedRun))
  }

  /// A finished job's events, having used `peak` bytes at most.
  func finished(_ job: JobID, at time: Double, peak: Int) -> [RunEvent] {
    var done = Transition(job: job, queue: 0, from: .executing, to: .finished, outcome: .succeeded, duration: 1)
    done.usage = ResourceUsage(cpuSeconds: 1, peakMemory: peak, source: .process)
    return [
      transition(job, .ready, .executing, pids: [Int32(job + 1)], at: time - 1),
      RunEvent(time: time, .transition(done)),
    ]
  }

  @Test func theHeaviestAreTheThreeLargestPeaksWhenOneJobUsedOver100MB() {
    var events = finished(0, at: 1, peak: 5_583_457_484) + finished(1, at: 1, peak: 1_181_116_006)
    events +=
      finished(2, at: 1, peak: 3 << 20) + finished(4, at: 2, peak: 200 << 20) + finished(5, at: 2, peak: 1 << 20)
    events.append(runFinished(exitCode: 0, at: 2))
    let out = CapturedOutput()
    HumanReporter(graph: graph, options: HumanOptions(), out: out.sink, err: CapturedOutput().sink).observe(events)
    #expect(out.lines.contains("── heaviest: fetch 5.2 GB · build 1.1 GB · lint 200 MB"), "\(out.lines)")
  }

  @Test func noJobOver100MBNamesNoHeaviest() {
    var events = finished(0, at: 1, peak: 100 << 20) + finished(1, at: 1, peak: 3 << 20)
    events.append(runFinished(exitCode: 0, at: 2))
    let out = CapturedOutput()
    HumanReporter(graph: graph, options: HumanOptions(), out: out.sink, err: CapturedOutput().sink).observe(events)
    #expect(!out.lines.contains { $0.contains("heaviest") }, "\(out.lines)")
    #expect(RunSummary(jobCount: 6, events: events).heaviest().isEmpty)
  }

  @Test func aSuccessfulRunEndsWithOneCountsLine() {
    let out = CapturedOutput()
    HumanReporter(graph: graph, options: HumanOptions(verbosity: .quiet), out: out.sink, err: CapturedOutput().sink)
      .observe(lifecycle(0, start: 0, end: 1, pid: 1) + [runFinished(exitCode: 0, at: 1.25)])
    #expect(out.lines == ["── summary: 6 jobs · 1 succeeded · 1.25s wall · exit 0"])
  }

  /// As ninja's "no work to do": a run in which every job was up to date ends with one line
  /// that says so, in place of the counts, whatever the verbosity; one job that ran brings
  /// the counts back.
  @Test(arguments: HumanOptions.Verbosity.allCases)
  func aRunOfOnlyUpToDateJobsEndsWithNothingToDo(verbosity: HumanOptions.Verbosity) {
    let graph = makeGraph(jobs: ["compile", "link"])
    func lastLine(_ events: [RunEvent]) -> String? {
      let out = CapturedOutput()
      let options = HumanOptions(verbosity: verbosity)
      HumanReporter(graph: graph, options: options, out: out.sink, err: CapturedOutput().sink).observe(events)
      #expect(out.lines.filter { $0.hasPrefix("──") }.count == 1, "\(out.lines)")
      return out.lines.last
    }
    let noOp = upToDate(0, at: 0.001) + upToDate(1, at: 0.002) + [runFinished(exitCode: 0, at: 0.01)]
    #expect(lastLine(noOp) == "── nothing to do: 2 jobs up to date")
    let oneRan =
      upToDate(0, at: 0.001) + lifecycle(1, start: 0.002, end: 0.5, pid: 7) + [
        runFinished(exitCode: 0, at: 0.5)
      ]
    #expect(lastLine(oneRan) == "── summary: 2 jobs · 2 succeeded (1 up to date) · 0.50s wall · exit 0")
  }

  /// SPEC §8: the summary tells the jobs `oprun ctl` cancelled from the others.
  @Test func cancelledJobsSayHowManyWereCancelledByControl() {
    var events = lifecycle(0, start: 0, end: 1, pid: 1)
    events += [
      transition(1, .ready, .executing, pids: [2], at: 0),
      RunEvent(time: 0.5, .cancelled(job: 1, reason: .control)),
      transition(1, .executing, .finished, outcome: .cancelled, termination: .signalled(15), duration: 0.6, at: 0.6),
      RunEvent(time: 0.7, .cancelled(job: 2, reason: .interrupt)),
      transition(2, .ready, .finished, outcome: .cancelled, duration: 0, at: 0.7),
      RunEvent(time: 0.8, .cancelled(job: 3, reason: .control)),
      transition(3, .ready, .finished, outcome: .cancelled, duration: 0, at: 0.8),
      RunEvent(time: 0.8, .cancelled(job: 4, reason: .dependencyFailed)),
      transition(4, .ready, .finished, outcome: .skipped, duration: 0, at: 0.8),
      runFinished(exitCode: 130, at: 1.5),
    ]
    let summary = RunSummary(jobCount: 6, events: events)
    #expect(summary.cancelledByControl == 2)
    let out = CapturedOutput()
    HumanReporter(graph: graph, options: HumanOptions(verbosity: .quiet), out: out.sink, err: CapturedOutput().sink)
      .observe(events)
    #expect(
      out.lines == [
        "── summary: 6 jobs · 1 succeeded · 3 cancelled (2 by control) · 1 skipped · 1.50s wall · exit 130"
      ])
  }

  @Test func cancelledJobsNoneOfWhichByControlKeepTheirPlainCount() {
    let events = [
      RunEvent(time: 0.7, .cancelled(job: 2, reason: .interrupt)),
      transition(2, .ready, .finished, outcome: .cancelled, duration: 0, at: 0.7),
      runFinished(exitCode: 130, at: 1),
    ]
    let out = CapturedOutput()
    HumanReporter(graph: graph, options: HumanOptions(verbosity: .quiet), out: out.sink, err: CapturedOutput().sink)
      .observe(events)
    #expect(out.lines == ["── summary: 6 jobs · 1 cancelled · 1.00s wall · exit 130"])
    #expect(RunSummary(jobCount: 6, events: events).cancelledByControl == 0)
  }

  @Test func theCountsLineIsColouredWhenAsked() {
    let out = CapturedOutput()
    HumanReporter(graph: graph, options: HumanOptions(color: true), out: out.sink, err: CapturedOutput().sink)
      .observe([runFinished(exitCode: 0, at: 0)])
    #expect(out.lines == ["\u{1B}[1m── summary: \u{1B}[0m6 jobs · 0.00s wall · exit 0"])
  }

  @Test func longLinesAreCutAtACharacterBoundaryInTheTail() {
    var tail = OutputTail(capacity: 2, maximumLineLength: 5)
    tail.append(Array("abcdé\nxy".utf8))
    #expect(tail.lines == [Array("abcd…".utf8), Array("xy".utf8)])
    #expect(tail.totalLines == 2)
  }
}
