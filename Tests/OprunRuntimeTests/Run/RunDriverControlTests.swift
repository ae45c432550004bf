import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// `oprun ctl` as the run takes it: ``RunCommand/control(_:reply:)`` (SPEC §8). Pausing is
/// in ``RunDriverPauseTests``, `status` in ``RunDriverStatusTests``.
@Suite struct RunDriverControlTests {
  static let threeJobs = """
    max-concurrent: 1
    queues: {net: {max-concurrent: 1}}
    jobs:
      build: {command: build}
      test: {command: test, dependencies: [build]}
      fetch: {command: fetch, queue: net}
    """

  // MARK: "Each request is answered with `ok` or a clear error, and appears in the event
  // stream as {"event": "control", …} before the transitions it causes."

  @Test func controlEventComesBeforeEveryTransitionItCausesAndTheAnswerRightAfterIt() {
    let run = DriverHarness(Self.threeJobs)
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.start()
    run.advance(by: 1)
    let before = run.events.all.count
    let exchange = run.control("cancel", "test")
    #expect(exchange.ok && exchange.error == nil && exchange.replies == 1)
    #expect(exchange.eventsBeforeAnswer == before + 1)
    #expect(
      run.lines(after: before) == [
        "control cancel test ok", "test cancelled control", "test pending>ready",
      ])
    guard case .control(let command, let args, let ok, let uid, let pid, let error) = run.events.all[before].kind
    else {
      Issue.record("no control event first")
      return
    }
    #expect(command == "cancel" && args == ["test"] && ok && error == nil)
    #expect(uid == DriverHarness.peerUID && pid == DriverHarness.peerPID)
    #expect(run.events.all[before].time == 1)
  }

  @Test func refusedRequestIsAControlEventWithItsErrorAnsweredRightAfterIt() {
    let run = DriverHarness(Self.threeJobs)
    run.start()
    let before = run.events.all.count
    let exchange = run.control("cancel", "tset")
    #expect(!exchange.ok)
    #expect(exchange.error == "unknown job 'tset' (did you mean 'test'?)")
    #expect(exchange.eventsBeforeAnswer == before + 1)
    #expect(run.lines(after: before) == ["control cancel tset refused"])
    guard case .control(_, _, false, _, _, let error) = run.events.all[before].kind else {
      Issue.record("no refused control event")
      return
    }
    #expect(error == exchange.error)
  }

  // MARK: validation — "an unknown job or queue, cancelling a finished job, re-prioritising
  // a started one, pausing or continuing a job that is not executing" are refused, and a
  // refused request changes nothing.

  @Test(arguments: [
    (["cancel", "biuld"], "unknown job 'biuld' (did you mean 'build'?)"),
    (["cancel", "test", "biuld"], "unknown job 'biuld' (did you mean 'build'?)"),
    (["cancel", "xyz", "zzz"], "unknown job 'xyz'; unknown job 'zzz'; the jobs are build, test and fetch"),
    (
      ["cancel-all", "main", "nett"],
      "unknown queue 'main'; queues: jobs, net; unknown queue 'nett' (did you mean 'net'?)"
    ),
    (["suspend", "web"], "unknown queue 'web'; queues: jobs, net"),
    (["resume", "nte"], "unknown queue 'nte' (did you mean 'net'?)"),
    (["limit", "nte", "2"], "unknown queue 'nte' (did you mean 'net'?)"),
    (["priority", "tset", "high"], "unknown job 'tset' (did you mean 'test'?)"),
    (["pause", "build", "biuld"], "unknown job 'biuld' (did you mean 'build'?)"),
    (["continue", "bulid"], "unknown job 'bulid' (did you mean 'build'?)"),
  ])
  func unknownJobOrQueueIsRefusedWithASuggestionAndChangesNothing(request: [String], error: String) {
    expectRefusedWithoutChange(request, error: error)
  }

  @Test(arguments: [
    (["limit", "net", "0"], "bad limit '0': expected a whole number, at least 1"),
    (["limit", "net", "-1"], "bad limit '-1': expected a whole number, at least 1"),
    (["limit", "net", "2.5"], "bad limit '2.5': expected a whole number, at least 1"),
    (
      ["limit", "net", "99999999999999999999"], "bad limit '99999999999999999999': expected a whole number, at least 1"
    ),
    (
      ["limit", "web", "x"],
      "unknown queue 'web'; queues: jobs, net; bad limit 'x': expected a whole number, at least 1"
    ),
    (
      ["priority", "test", "hihg"],
      "unknown priority 'hihg' (did you mean 'high'?); expected veryLow, low, normal, high or veryHigh (or -8, -4, 0, 4, 8)"
    ),
    (
      ["priority", "test", "3"],
      "unknown priority '3'; expected veryLow, low, normal, high or veryHigh (or -8, -4, 0, 4, 8)"
    ),
  ])
  func badNumberOrLevelIsRefusedAndChangesNothing(request: [String], error: String) {
    expectRefusedWithoutChange(request, error: error)
  }

  @Test(arguments: [
    (["cancel"], "usage: cancel JOB..."),
    (["pause"], "usage: pause JOB..."),
    (["continue"], "usage: continue JOB..."),
    (["limit", "net"], "usage: limit QUEUE N"),
    (["limit", "net", "2", "3"], "usage: limit QUEUE N"),
    (["priority", "test"], "usage: priority JOB LEVEL"),
    (["status", "--json"], "usage: status (it takes no arguments)"),
    (["watch", "build"], "usage: watch (it takes no arguments)"),
    (["cancle", "build"], "unknown command 'cancle' (did you mean 'cancel'?)"),
    (
      ["stop"],
      "unknown command 'stop'; expected status, cancel, cancel-all, suspend, resume, limit, budget, priority, pause, continue or watch"
    ),
  ])
  func wrongArgumentsOrAnUnknownCommandAreRefused(request: [String], error: String) {
    expectRefusedWithoutChange(request, error: error)
  }

  /// Refused, with its `control` event and nothing else: no cancellation, no queue, limit
  /// or priority event, no signal, the same jobs started.
  private func expectRefusedWithoutChange(
    _ request: [String], error: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    let run = DriverHarness(Self.threeJobs)
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.start()
    run.advance(by: 1)
    let before = run.events.all.count
    let exchange = run.control(request[0], args: Array(request.dropFirst()))
    #expect(!exchange.ok, sourceLocation: sourceLocation)
    #expect(exchange.error == error, sourceLocation: sourceLocation)
    #expect(
      run.lines(after: before) == ["control \(request.joined(separator: " ")) refused"], sourceLocation: sourceLocation)
    #expect(run.backend.signals.isEmpty && run.backend.broadcasts.isEmpty, sourceLocation: sourceLocation)
    run.runToEnd()
    #expect(run.events.lines.filter { $0.hasSuffix(">finished succeeded") }.count == 3, sourceLocation: sourceLocation)
  }

  @Test func cancellingAFinishedJobIsRefusedAndSaysSo() {
    let run = DriverHarness(Self.threeJobs)
    run.start()
    run.advance(by: 1)
    let exchange = run.control("cancel", "fetch")
    #expect(!exchange.ok)
    #expect(exchange.error == "job 'fetch' has finished (succeeded): nothing to cancel")
    // With a job that could be cancelled: still nothing is.
    #expect(run.control("cancel", "test", "fetch").error == exchange.error)
    #expect(!run.driver.engine.isCancelled(run.id("test")))
    #expect(run.runToEnd() == 0)
  }

  @Test func reprioritisingAStartedOrFinishedJobIsRefusedAndSaysSo() {
    let run = DriverHarness(Self.threeJobs)
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.start()
    run.advance(by: 1)
    #expect(
      run.control("priority", "build", "high").error
        == "job 'build' has started: only a job that waits can change priority")
    #expect(
      run.control("priority", "fetch", "4").error
        == "job 'fetch' has finished (succeeded): only a job that waits can change priority")
    #expect(!run.events.lines.contains { $0.contains(" priority ") && !$0.hasPrefix("control ") })
  }

  @Test func cancellingAJobCancelledAlreadyIsAcceptedAndChangesNothing() {
    let run = DriverHarness(Self.threeJobs)
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.start()
    #expect(run.control("cancel", "test").ok)
    let before = run.events.all.count
    #expect(run.control("cancel", "test", "test").ok)
    #expect(run.lines(after: before) == ["control cancel test test ok"])
    #expect(run.driver.engine.cancelReason(of: run.id("test")) == .control)
  }

  @Test func requestAfterTheRunFinishedIsAnsweredWithoutAnEvent() {
    let run = DriverHarness(Self.threeJobs)
    run.start()
    run.runToEnd()
    let exchange = run.control("status")
    #expect(!exchange.ok && exchange.error == "the run has finished")
    run.driver.apply(.controlRefused(peerUID: 1001, peerPID: 9))
    #expect(run.events.lines.last == "run-finished 0")
  }

  // MARK: "a cancelled queued job ignores its dependencies and finishes cancelled when its
  // queue starts it, its dependents then follow their `run-if`"

  @Test func cancelledQueuedJobIgnoresItsDependenciesAndItsDependentsFollowTheirRunIf() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        build: {command: build}
        test: {command: test, dependencies: [build]}
        deploy: {command: deploy, dependencies: [test]}
        report: {command: report, dependencies: [test], run-if: always}
      """)
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.start()
    run.advance(by: 1)
    #expect(run.control("cancel", "test").ok)
    #expect(run.events.lines(of: "test") == ["test cancelled control", "test pending>ready"])
    run.advance(to: 10.5)
    // The one slot was build's until 10: test took it then, to finish at once.
    #expect(run.events.time(of: "test ready>finished cancelled") == 10)
    #expect(run.events.lines(of: "deploy").last == "deploy ready>finished skipped")
    #expect(run.events.time(of: "report ready>executing") == 10)
    #expect(run.backend.attemptOrders(of: run.id("test")).isEmpty)
    #expect(run.runToEnd() == 1)
  }

  // MARK: "a cancelled executing job gets SIGTERM on its process group and SIGKILL after the grace"

  @Test func cancelledExecutingJobGetsSIGTERMThenSIGKILLAfterTheGrace() {
    let run = DriverHarness(Self.threeJobs, grace: 3)
    run.backend.scripts["build"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(by: 2)
    #expect(run.control("cancel", "build").ok)
    #expect(run.backend.signalLines == ["build terminate@2.0"])
    run.advance(to: 5)
    #expect(run.backend.signalLines == ["build terminate@2.0", "build kill@5.0"])
    #expect(run.events.time(of: "build executing>finished cancelled") == 5)
    #expect(run.events.lines(of: "test").last == "test ready>finished skipped")
    #expect(run.runToEnd() == 1)
  }

  // MARK: "A job cancelled while executing finishes `cancelled`, whatever its exit status"

  @Test func jobCancelledWhileExecutingFinishesCancelledEvenIfItExitsZero() {
    let run = DriverHarness("jobs: {build: {command: build}}")
    run.backend.scripts["build"] = FakeCommand(duration: 100, onSignal: .exits(after: 1, .exited(0)))
    run.start()
    run.advance(by: 2)
    run.control("cancel", "build")
    #expect(run.runToEnd() == 1)
    let finished = run.events.transitions(of: "build").last
    #expect(finished?.outcome == .cancelled && finished?.termination == .exited(0))
  }

  // MARK: "Cancelling one job leaves a suspended queue suspended: the job finishes when the
  // queue is resumed and starts it"

  @Test func cancellingOneJobLeavesASuspendedQueueSuspendedUntilResumed() {
    let run = DriverHarness(Self.threeJobs)
    run.backend.scripts["build"] = FakeCommand(duration: 1)
    run.start()
    #expect(run.control("suspend", "jobs").ok)
    run.advance(by: 2)
    #expect(run.control("cancel", "test").ok)
    run.advance(by: 5)
    #expect(run.events.lines(of: "test") == ["test pending>ready", "test cancelled control"])
    #expect(run.driver.engine.isSuspended(0))
    #expect(!run.driver.isFinished)
    #expect(run.control("resume").ok)
    #expect(run.events.time(of: "test ready>finished cancelled") == 7)
    #expect(run.events.lines.filter { $0.hasPrefix("queue ") } == ["queue jobs suspended", "queue jobs resumed"])
    #expect(run.runToEnd() == 1)
  }

  // MARK: "`cancel-all`, like Ctrl-C, resumes the queues it cancels so that the run can
  // drain …, and a run that ends this way, with no signal received, exits 1"

  @Test func cancelAllResumesTheQueuesItCancelsAndTheRunExitsOne() {
    let run = DriverHarness(Self.threeJobs)
    run.backend.scripts["build"] = FakeCommand(duration: 100)
    run.start()
    run.advance(by: 1)
    #expect(run.control("suspend").ok)
    let before = run.events.all.count
    #expect(run.control("cancel-all").ok)
    #expect(
      run.lines(after: before) == [
        "control cancel-all ok", "build cancelled control", "test cancelled control", "test pending>ready",
        "queue jobs resumed", "queue net resumed",
      ])
    #expect(run.backend.signalLines == ["build terminate@1.0"])
    #expect(run.runToEnd() == 1)
    #expect(run.driver.endingSignal == nil)
    #expect(run.events.lines.last == "run-finished 1")
  }

  @Test func cancelAllOfOneQueueLeavesTheOtherQueueAlone() {
    let run = DriverHarness(Self.threeJobs)
    run.backend.scripts["fetch"] = FakeCommand(duration: 100)
    run.start()
    #expect(run.control("suspend").ok)
    #expect(run.control("cancel-all", "net").ok)
    #expect(run.events.lines.filter { $0.hasPrefix("queue ") }.last == "queue net resumed")
    #expect(run.driver.engine.isSuspended(0))
    #expect(!run.driver.engine.isCancelled(run.id("build")))
    #expect(run.backend.signalLines == ["fetch terminate@0.0"])
  }

  @Test func runThatEndsAfterOneControlCancellationExitsOne() {
    let run = DriverHarness(Self.threeJobs)
    run.start()
    run.control("cancel", "fetch")
    #expect(run.runToEnd() == 1)
    #expect(run.driver.endingSignal == nil)
    #expect(run.events.lines(of: "build").last == "build executing>finished succeeded")
  }

  // MARK: suspend and resume: `isSuspended` of those queues (default: all)

  @Test func suspendAndResumeTheNamedQueuesOrAll() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      queues: {net: {max-concurrent: 1}}
      jobs:
        build: {command: build}
        test: {command: test, dependencies: [build]}
        fetch: {command: fetch, queue: net}
        upload: {command: upload, queue: net}
      """)
    run.start()
    #expect(run.control("suspend", "net").ok)
    run.advance(by: 1)
    #expect(run.events.time(of: "test ready>executing") == 1)
    #expect(run.events.lines(of: "upload") == ["upload pending>ready"])
    #expect(run.control("suspend").ok)
    #expect(run.control("resume", "net").ok)
    #expect(run.events.time(of: "upload ready>executing") == 1)
    #expect(
      run.events.lines.filter { $0.hasPrefix("queue ") } == [
        "queue net suspended", "queue jobs suspended", "queue net resumed",
      ])
    #expect(run.driver.engine.isSuspended(0))
    #expect(run.control("resume").ok)
    #expect(run.events.lines.filter { $0.hasPrefix("queue ") }.last == "queue jobs resumed")
    #expect(run.runToEnd() == 0)
  }

  // MARK: "limit QUEUE N: maxConcurrentOperationCount, live: raising it starts jobs now"

  @Test func raisingTheLimitStartsReadyJobsAtOnceAndLoweringItStopsNothing() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs: {a: {command: a}, b: {command: b}, c: {command: c}, d: {command: d}}
      """)
    run.backend.scripts = [
      "a": FakeCommand(duration: 10), "b": FakeCommand(duration: 10), "c": FakeCommand(duration: 10),
    ]
    run.start()
    run.advance(by: 1)
    let before = run.events.all.count
    #expect(run.control("limit", "jobs", "3").ok)
    #expect(
      run.lines(after: before) == [
        "control limit jobs 3 ok", "queue jobs limit 3", "b ready>executing", "c ready>executing",
      ])
    #expect(run.control("limit", "jobs", "1").ok)
    #expect(run.backend.running == ["a", "b", "c"])
    run.advance(to: 10)
    #expect(run.backend.running == ["b", "c"])
    run.advance(to: 11)
    #expect(run.events.time(of: "d ready>executing") == 11)
  }

  // MARK: "A live priority change puts the job at the end of its new band, as Foundation does"

  @Test func priorityChangePutsAWaitingJobAtTheEndOfItsNewBand() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        hold: {command: hold, priority: veryHigh}
        a: {command: a, priority: high}
        b: {command: b}
        c: {command: c, priority: high}
      """)
    run.start()
    #expect(run.control("priority", "b", "veryHigh").ok)
    #expect(run.control("priority", "a", "4").ok)
    #expect(
      run.events.lines.filter { $0.hasSuffix(" priority veryHigh") || $0.hasSuffix(" priority high") } == [
        "b priority veryHigh", "a priority high",
      ])
    run.runToEnd()
    #expect(run.backend.orders.map(\.commands) == [["hold"], ["b"], ["c"], ["a"]])
  }

  // MARK: "watch … follow the run": the run only answers ok; the channel streams.

  @Test func watchAndStatusAreAcceptedAndChangeNothing() {
    let run = DriverHarness(Self.threeJobs)
    run.start()
    let before = run.events.all.count
    let watch = run.control("watch")
    #expect(watch.ok && watch.answer.data.isEmpty)
    #expect(run.control("status").ok)
    #expect(run.lines(after: before) == ["control watch ok", "control status ok"])
    #expect(run.runToEnd() == 0)
  }

  // MARK: "A refused peer's request is not read and makes no `control` event; the refusal
  // is a `control-refused` event"

  @Test func refusedPeerIsAControlRefusedEvent() {
    let run = DriverHarness(Self.threeJobs)
    run.start()
    run.driver.apply(.controlRefused(peerUID: 1001, peerPID: 77))
    #expect(run.events.lines.last == "control-refused uid 1001 pid 77")
    #expect(!run.events.lines.contains { $0.hasPrefix("control ") })
    #expect(run.runToEnd() == 0)
  }
}
