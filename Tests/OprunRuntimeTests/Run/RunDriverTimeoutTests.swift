import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// How a job fails, runs out of time and is run again (SPEC §3.5).
@Suite struct RunDriverTimeoutTests {
  /// "A job fails when a command exits non-zero, is killed by a signal that oprun did not
  /// send, or times out"
  @Test(arguments: [Termination.exited(3), .signalled(SIGKILL), .signalled(SIGTERM)])
  func commandThatExitsNonZeroOrIsKilledByAnotherSignalFailsItsJob(termination: Termination) {
    let run = DriverHarness("jobs: {a: {command: build}}")
    run.backend.scripts["build"] = FakeCommand(duration: 2, termination: termination)
    run.start()
    #expect(run.runToEnd() == 1)
    let finished = run.events.transitions(of: "a").last!
    #expect(finished.outcome == .failed)
    #expect(finished.termination == termination)
    #expect(run.backend.signals.isEmpty)
  }

  /// "or times out (then it gets SIGTERM, and SIGKILL after the grace period)" — SIGTERM
  /// exactly at the limit, and the attempt ends timed out.
  @Test func jobThatRunsOutOfTimeGetsSIGTERMAtTheLimit() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 5}}")
    run.backend.scripts["build"] = FakeCommand(duration: 100)
    run.start()
    run.advance(to: 4.5)
    #expect(run.backend.signals.isEmpty)
    run.advance(to: 5)
    #expect(run.backend.signalLines == ["build terminate@5.0"])
    #expect(run.events.time(of: "a cancelled timeout") == 5)
    #expect(run.runToEnd() == 1)
    let finished = run.events.transitions(of: "a").last!
    #expect(finished.outcome == .timedOut)
    #expect(finished.termination == .signalled(SIGTERM))
    #expect(run.events.time(of: "a executing>finished timed-out") == 5)
  }

  /// A job stopped with the run (Ctrl-Z, then `fg`) is paused: its clock stops, as
  /// `ctl pause` stops it.
  @Test func timeTheRunSpendsStoppedDoesNotCountAgainstATimeLimit() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 4}}")
    run.backend.scripts["build"] = FakeCommand(duration: 3)
    run.start()
    run.advance(to: 0.5)
    run.driver.apply(.stopJobs)
    run.advance(to: 6.5)
    run.driver.apply(.continueJobs)
    #expect(run.runToEnd() == 0)
    #expect(run.backend.signals.isEmpty)
    #expect(run.events.transitions(of: "a").last?.outcome == .succeeded)
  }

  /// What the limit had left when the run stopped still runs out after it goes on.
  @Test func aTimeLimitRunsOutWithWhatItHadLeftOnceTheRunGoesOn() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 4}}")
    run.backend.scripts["build"] = FakeCommand(duration: 100)
    run.start()
    run.advance(to: 1)
    run.driver.apply(.stopJobs)
    run.advance(to: 11)
    run.driver.apply(.continueJobs)
    run.driver.apply(.continueJobs)
    run.advance(to: 13.9)
    #expect(run.backend.signals.isEmpty)
    run.advance(to: 14)
    #expect(run.backend.signalLines == ["build terminate@14.0"])
    #expect(run.runToEnd() == 1)
  }

  /// "(then it gets SIGTERM, and SIGKILL after the grace period)"
  @Test func timedOutJobGetsSIGKILLAfterTheGrace() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 5}}", grace: 3)
    run.backend.scripts["build"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(to: 7.5)
    #expect(run.backend.signalLines == ["build terminate@5.0"])
    run.advance(to: 8)
    #expect(run.backend.signalLines == ["build terminate@5.0", "build kill@8.0"])
    #expect(run.runToEnd() == 1)
    #expect(run.events.transitions(of: "a").last?.outcome == .timedOut)
    #expect(run.events.time(of: "a executing>finished timed-out") == 8)
  }

  /// "an executing job is marked cancelled and the same signal is sent to its process
  /// group" — also when it had timed out already: Ctrl-C still reaches it, and the kill
  /// stays due when the timeout's grace period ends.
  @Test func timedOutJobStillGetsTheInterruptOfACtrlC() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 5}}", grace: 3)
    run.backend.scripts["build"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(to: 6)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.advance(to: 8)
    #expect(run.backend.signalLines == ["build terminate@5.0", "build interrupt@6.0", "build kill@8.0"])
    #expect(run.runToEnd() == 128 + SIGINT)
    #expect(run.events.transitions(of: "a").last?.outcome == .cancelled)
  }

  /// "A job that is cancelled or times out takes its group with it at once: what is left in
  /// the group after its own process exits gets SIGKILL when the grace period ends, at the
  /// latest." — timed out, while the run goes on.
  @Test func leftoverOfATimedOutJobIsKilledWhenTheGraceEnds() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: spawn-daemon, timeout: 2}
        b: {command: long}
      """)
    run.backend.scripts["spawn-daemon"] = FakeCommand(duration: 100, leavesProcessBehind: true)
    run.backend.scripts["long"] = FakeCommand(duration: 100)
    run.start()
    run.advance(to: 6.5)
    #expect(run.events.time(of: "a executing>finished timed-out") == 2)
    #expect(run.backend.liveGroups == ["spawn-daemon", "long"])
    run.advance(to: 7)
    #expect(run.backend.liveGroups == ["long"])
    #expect(run.backend.signalLines == ["spawn-daemon terminate@2.0", "spawn-daemon kill@7.0"])
  }

  /// "A job fails when … it times out": to the failure policy, its dependents' `run-if` and
  /// the exit status.
  @Test func timedOutJobHasFailed() {
    let run = DriverHarness(
      """
      on-failure: stop
      jobs:
        a: {command: build, timeout: 1}
        b: {command: test, dependencies: [a]}
        c: {command: rescue, dependencies: [a], run-if: failure}
      """)
    run.backend.scripts["build"] = FakeCommand(duration: 100)
    run.start()
    #expect(run.runToEnd() == 1)
    #expect(
      run.events.lines(of: "b") == ["b cancelled failure-policy", "b pending>ready", "b ready>finished cancelled"])
    #expect(run.events.lines(of: "c").last == "c executing>finished succeeded")
  }

  /// "`retries: N` re-runs a failed job up to N times." — each attempt numbered, in its
  /// transitions and its commands' `OPRUN_ATTEMPT`.
  @Test func failedJobIsRerunUpToItsRetries() {
    let run = DriverHarness("jobs: {a: {command: build, retries: 2}}")
    run.backend.scripts["build"] = FakeCommand(duration: 1, termination: .exited(1))
    run.start()
    #expect(run.runToEnd() == 1)
    #expect(
      run.events.lines(of: "a") == [
        "a pending>ready", "a ready>executing", "a executing>ready", "a ready>executing", "a executing>ready",
        "a ready>executing", "a executing>finished failed",
      ])
    #expect(run.events.transitions(of: "a").filter { $0.to == .executing }.map(\.attempt) == [1, 2, 3])
    #expect(
      run.events.transitions(of: "a").filter { $0.from == .executing }.map(\.termination) == [
        .exited(1), .exited(1), .exited(1),
      ])
    let orders = run.backend.attemptOrders(of: run.id("a"))
    #expect(orders.map { $0.value(of: "OPRUN_ATTEMPT") } == ["1", "2", "3"])
    #expect(orders.map(\.work.purpose) == [.attempt(1), .attempt(2), .attempt(3)])
  }

  /// "`retries: N` re-runs a failed job up to N times." — and no more once an attempt succeeds.
  @Test func retriesStopAtTheFirstSuccess() {
    let run = DriverHarness("jobs: {a: {command: build, retries: 3}}")
    run.backend.nextScripts["build"] = [FakeCommand(duration: 1, termination: .exited(1))]
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.backend.attemptOrders(of: run.id("a")).count == 2)
    #expect(run.events.transitions(of: "a").last?.attempt == 2)
    #expect(run.events.lines(of: "a").last == "a executing>finished succeeded")
  }

  /// "A job fails when … it times out" and "`retries: N` re-runs a failed job": a timed-out
  /// attempt is retried, with its own time limit.
  @Test func timedOutAttemptIsRetried() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 5, retries: 1}}")
    run.backend.nextScripts["build"] = [FakeCommand(duration: 100)]
    run.backend.scripts["build"] = FakeCommand(duration: 4)
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.events.time(of: "a executing>ready") == 5)
    #expect(
      run.events.transitions(of: "a").first { $0.to == .ready && $0.from == .executing }?.termination
        == .signalled(SIGTERM))
    let orders = run.backend.attemptOrders(of: run.id("a"))
    #expect(orders.map { $0.value(of: "OPRUN_ATTEMPT") } == ["1", "2"])
    #expect(run.events.time(of: "a executing>finished succeeded") == 9)
  }

  /// "or times out (then it gets SIGTERM, and SIGKILL after the grace period)" — only an
  /// attempt that is still running: the timer of one that ended never fires, and a retry
  /// gets a full limit of its own.
  @Test func timerOfAnAttemptThatEndedNeverFiresASignal() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 5, retries: 1}}")
    run.backend.nextScripts["build"] = [FakeCommand(duration: 1, termination: .exited(1))]
    run.backend.scripts["build"] = FakeCommand(duration: 4.5)
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.backend.signals.isEmpty)
    #expect(!run.events.lines.contains("a cancelled timeout"))
    #expect(run.events.time(of: "a executing>finished succeeded") == 5.5)
  }

  /// "(then it gets SIGTERM, and SIGKILL after the grace period)" — the kill goes to the
  /// attempt that timed out, never to the retry running by then.
  @Test func killAfterTheGraceOfATimedOutAttemptNeverReachesItsRetry() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 5, retries: 1}}", grace: 2)
    run.backend.nextScripts["build"] = [FakeCommand(duration: 100)]
    run.backend.scripts["build"] = FakeCommand(duration: 4)
    run.start()
    #expect(run.runToEnd() == 0)
    let first = run.backend.handle(of: "build", index: 0)!
    let retry = run.backend.handle(of: "build", index: 1)!
    #expect(run.backend.signals.map(\.handle) == [first, first])
    #expect(!run.backend.signals.contains { $0.handle == retry })
    #expect(run.backend.signalLines == ["build terminate@5.0", "build kill@7.0"])
    #expect(run.events.time(of: "a executing>finished succeeded") == 9)
  }

  /// "A cancelled job has not failed" — it is never run again, whatever its retries.
  @Test func cancelledJobNeverRetries() {
    let run = DriverHarness("jobs: {a: {command: build, retries: 2}}")
    run.backend.scripts["build"] = FakeCommand(duration: 10, onSignal: .exits(after: 1, .exited(1)))
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    #expect(run.runToEnd() == 128 + SIGINT)
    #expect(run.backend.attemptOrders(of: run.id("a")).count == 1)
    #expect(run.events.lines(of: "a").last == "a executing>finished cancelled")
    #expect(!run.events.lines.contains("a executing>ready"))
  }
}
