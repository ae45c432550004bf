import OprunCore
import OprunRuntime
import Testing

/// Failures told once, root first: what each failure made skip or cancel, from the events.
@Suite struct ReportingConsequencesTests {
  /// a fails; b depends on a, c on b, d on a; e on nothing; f was cancelled by the failure policy.
  var graph: JobGraph {
    var graph = makeGraph(jobs: ["a", "b", "c", "d", "e", "f"])
    graph.jobs[1].dependencies = [0]
    graph.jobs[2].dependencies = [1]
    graph.jobs[3].dependencies = [0]
    return graph
  }

  func skipped(_ job: JobID, at time: Double) -> [RunEvent] {
    [
      RunEvent(time: time, .cancelled(job: job, reason: .dependencyFailed)),
      transition(job, .pending, .ready, at: time),
      transition(job, .ready, .finished, outcome: .skipped, duration: 0, at: time),
    ]
  }

  var run: [RunEvent] {
    var events = lifecycle(0, start: 0, end: 1, pid: 1, outcome: .failed, termination: .exited(2))
    events += [RunEvent(time: 1, .cancelled(job: 5, reason: .failurePolicy))]
    events += [transition(5, .pending, .ready, at: 1), transition(5, .ready, .finished, outcome: .cancelled, at: 1)]
    events += skipped(1, at: 1.1) + skipped(3, at: 1.1) + skipped(2, at: 1.2)
    events += lifecycle(4, start: 0, end: 2, pid: 5)
    return events
  }

  @Test func skippedJobsFollowTheirRootFailureThroughOtherSkippedJobs() {
    let summary = RunSummary(jobCount: 6, events: run)
    #expect(
      summary.consequences(in: graph) == [
        0: [.init(outcome: .skipped, jobs: [1, 3, 2]), .init(outcome: .cancelled, jobs: [5])]
      ])
  }

  @Test func aJobCancelledByASignalFollowsFromNoFailure() {
    var events = lifecycle(0, start: 0, end: 1, pid: 1, outcome: .failed, termination: .exited(2))
    events += [RunEvent(time: 0.5, .cancelled(job: 4, reason: .interrupt))]
    events += lifecycle(4, start: 0, end: 1, pid: 5, outcome: .cancelled, termination: .signalled(2))
    #expect(RunSummary(jobCount: 6, events: events).consequences(in: graph).isEmpty)
  }

  @Test func aJobSkippedAfterTwoFailuresIsCountedUnderTheFirstToFinish() {
    var graph = makeGraph(jobs: ["x", "y", "z"])
    graph.jobs[2].dependencies = [0, 1]
    var events = lifecycle(1, start: 0, end: 1, pid: 2, outcome: .timedOut, termination: .signalled(15))
    events += lifecycle(0, start: 0, end: 2, pid: 1, outcome: .failed, termination: .exited(1))
    events += skipped(2, at: 2)
    #expect(RunSummary(jobCount: 3, events: events).consequences(in: graph) == [1: [.init(outcome: .skipped, jobs: [2])]])
  }

  @Test func theSummaryTellsEachFailureThenWhatFollowedFromIt() {
    let out = CapturedOutput()
    let reporter = HumanReporter(graph: graph, out: out.sink, err: CapturedOutput().sink)
    reporter.observe(run + [runFinished(exitCode: 1, at: 2)])
    out.sink.flush()
    let lines = out.lines
    let failure = try! #require(lines.firstIndex(of: "── a: failed (exit 2) in 1.00s"))
    #expect(lines[failure + 1] == "── b, d, c: skipped because a failed")
    #expect(lines[failure + 2] == "── f: cancelled because a failed")
  }

  @Test func aLongListNamesTenJobsAndCountsTheRest() {
    let names = ["root"] + (1...14).map { "j\($0)" }
    var graph = makeGraph(jobs: names)
    for job in 1...14 { graph.jobs[job].dependencies = [0] }
    var events = lifecycle(0, start: 0, end: 1, pid: 1, outcome: .timedOut, termination: .signalled(15))
    for job in 1...14 { events += skipped(job, at: 1) }
    let out = CapturedOutput()
    HumanReporter(graph: graph, out: out.sink, err: CapturedOutput().sink).observe(
      events + [runFinished(exitCode: 1, at: 2)])
    out.sink.flush()
    let shown = (1...10).map { "j\($0)" }.joined(separator: ", ")
    #expect(out.lines.contains("── \(shown) and 4 more: skipped because root timed out"))
  }
}
