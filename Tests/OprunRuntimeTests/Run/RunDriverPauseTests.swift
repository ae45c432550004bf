import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// `oprun ctl pause|continue JOB...`: SIGSTOP / SIGCONT an executing job's process group
/// (SPEC §8), on a fake backend whose stopped commands do not run.
@Suite struct RunDriverPauseTests {
  /// "A paused job keeps its slot … `paused` and `continued` events mark both moves."
  @Test func pauseStopsEveryCommandOfTheJobWhichKeepsItsSlotUntilContinued() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        a: {commands: [one, two]}
        b: {command: next}
      """)
    run.backend.scripts = ["one": FakeCommand(duration: 2), "two": FakeCommand(duration: 3)]
    run.start()
    run.advance(by: 1)
    let before = run.events.all.count
    let exchange = run.control("pause", "a")
    #expect(exchange.ok && exchange.eventsBeforeAnswer == before + 1)
    #expect(run.lines(after: before) == ["control pause a ok", "a paused"])
    #expect(run.backend.signalLines == ["one stop@1.0", "two stop@1.0"])
    #expect(run.backend.stopped == ["one", "two"])
    run.advance(to: 6)
    #expect(run.events.lines(of: "b") == ["b pending>ready"])
    #expect(run.driver.engine.runningCount(queue: 0) == 1)
    #expect(run.control("continue", "a").ok)
    #expect(run.events.lines.suffix(2) == ["control continue a ok", "a continued"])
    #expect(run.backend.signalLines.suffix(2) == ["one continue@6.0", "two continue@6.0"])
    // Each command runs the time it had left: one 1 s, two 2 s.
    run.advance(to: 8)
    #expect(run.events.time(of: "a executing>finished succeeded") == 8)
    #expect(run.events.time(of: "b ready>executing") == 8)
    #expect(run.runToEnd() == 0)
  }

  /// "its timeout clock stops while it is paused"
  @Test func pausedJobsTimeoutClockStopsWhileItIsPaused() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 5}}")
    run.backend.scripts["build"] = FakeCommand(duration: 100)
    run.start()
    run.advance(to: 2)
    run.control("pause", "a")
    run.advance(to: 10)
    #expect(!run.events.lines.contains("a cancelled timeout"))
    run.control("continue", "a")
    // 3 s were left: the limit now falls due at 13.
    run.advance(to: 12.9)
    #expect(run.backend.signalLines == ["build stop@2.0", "build continue@10.0"])
    run.advance(to: 13)
    #expect(run.events.time(of: "a cancelled timeout") == 13)
    #expect(run.backend.signalLines.last == "build terminate@13.0")
    #expect(run.runToEnd() == 1)
    #expect(run.events.transitions(of: "a").last?.outcome == .timedOut)
  }

  /// "its timeout clock stops while it is paused" — every pause, each for its own time.
  @Test func everyPauseStopsTheTimeoutClockAgain() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 5}}")
    run.backend.scripts["build"] = FakeCommand(duration: 4.5)
    run.start()
    run.advance(to: 1)
    run.control("pause", "a")
    run.advance(to: 3)
    run.control("continue", "a")
    run.advance(to: 4)
    run.control("pause", "a")
    run.advance(to: 20)
    run.control("continue", "a")
    // 4.5 s of running time: 1 + 1 before, 2.5 after 20, inside the 5 s it may run.
    #expect(run.runToEnd() == 0)
    #expect(run.events.time(of: "a executing>finished succeeded") == 22.5)
    #expect(run.events.transitions(of: "a").last?.duration == 22.5)
    #expect(!run.events.lines.contains("a cancelled timeout"))
  }

  /// "cancelling it continues it first so that it can receive the signal" — "Cancelling a
  /// paused job continues it first (a `continued` event), then signals it."
  @Test func cancellingAPausedJobContinuesItFirstThenSignalsIt() {
    let run = DriverHarness("jobs: {a: {command: build, timeout: 50}}", grace: 5)
    run.backend.scripts["build"] = FakeCommand(duration: 100, onSignal: .exits(after: 1, .exited(0)))
    run.start()
    run.advance(to: 1)
    run.control("pause", "a")
    run.advance(to: 3)
    let before = run.events.all.count
    #expect(run.control("cancel", "a").ok)
    #expect(run.lines(after: before) == ["control cancel a ok", "a cancelled control", "a continued"])
    #expect(run.backend.signalLines == ["build stop@1.0", "build continue@3.0", "build terminate@3.0"])
    #expect(run.runToEnd() == 1)
    #expect(run.events.time(of: "a executing>finished cancelled") == 4)
  }

  /// "cancelling it continues it first" — also when Ctrl-C cancels the run.
  @Test func ctrlCContinuesAPausedJobBeforeItPassesTheSignalOn() {
    let run = DriverHarness("jobs: {a: {command: build}, b: {command: other}}")
    run.backend.scripts["build"] = FakeCommand(duration: 100)
    run.backend.scripts["other"] = FakeCommand(duration: 100)
    run.start()
    run.control("pause", "a")
    run.advance(to: 2)
    RunSession.handle(SIGINT, driver: run.driver, stoppingSelf: {})
    #expect(
      run.events.lines.filter { $0.hasPrefix("a ") }.suffix(3) == [
        "a paused", "a cancelled interrupt", "a continued",
      ])
    #expect(
      run.backend.signalLines == ["build stop@0.0", "build continue@2.0", "build interrupt@2.0", "other interrupt@2.0"])
    #expect(run.runToEnd() == 128 + SIGINT)
    #expect(run.events.time(of: "a executing>finished cancelled") == 2)
  }

  /// "cancelling it continues it first" — and when `cancel-all` of the failure policy does.
  @Test func failurePolicyCancelAllContinuesAPausedJobFirst() {
    let run = DriverHarness("on-failure: cancel-all\njobs: {a: {command: build}, b: {command: broken}}")
    run.backend.scripts["build"] = FakeCommand(duration: 100)
    run.backend.scripts["broken"] = FakeCommand(duration: 3, termination: .exited(1))
    run.start()
    run.control("pause", "a")
    run.advance(to: 3)
    #expect(
      run.events.lines(of: "a") == [
        "a pending>ready", "a ready>executing", "a paused", "a cancelled failure-policy", "a continued",
        "a executing>finished cancelled",
      ])
    #expect(run.backend.signalLines == ["build stop@0.0", "build continue@3.0", "build terminate@3.0"])
    #expect(run.runToEnd() == 1)
  }

  /// Ctrl-Z stops everything and `fg` continues it all (SPEC §3.4) — but for a job the user
  /// paused, which stays paused until continued by `oprun ctl continue`.
  @Test func ctrlZAndFgLeaveAPausedJobPaused() {
    let run = DriverHarness("jobs: {a: {command: build}, b: {command: other}}")
    run.backend.scripts["build"] = FakeCommand(duration: 4)
    run.backend.scripts["other"] = FakeCommand(duration: 4)
    run.start()
    run.advance(to: 1)
    run.control("pause", "a")
    var stoppedWhileOprunIsStopped: [String] = []
    RunSession.handle(SIGTSTP, driver: run.driver) {
      stoppedWhileOprunIsStopped = run.backend.stopped
      run.advance(to: 3)
    }
    #expect(stoppedWhileOprunIsStopped == ["build", "other"])
    #expect(run.backend.stopped == ["build"])
    // A SIGCONT from elsewhere continues nothing more.
    RunSession.handle(SIGCONT, driver: run.driver, stoppingSelf: {})
    #expect(run.backend.stopped == ["build"])
    run.advance(to: 10)
    #expect(run.events.time(of: "b executing>finished succeeded") == 6)
    #expect(run.events.lines(of: "a").last == "a paused")
    run.control("continue", "a")
    #expect(run.runToEnd() == 0)
    #expect(run.events.time(of: "a executing>finished succeeded") == 13)
  }

  // MARK: "pausing or continuing a job that is not executing" is refused, and changes nothing.

  @Test func pausingOrContinuingAJobThatIsNotExecutingIsRefused() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        a: {command: build}
        b: {command: test}
        c: {command: deploy, dependencies: [b]}
      """)
    run.backend.scripts["build"] = FakeCommand(duration: 1)
    run.backend.scripts["test"] = FakeCommand(duration: 10)
    run.start()
    #expect(run.control("pause", "b").error == "job 'b' is not executing: it is ready")
    #expect(run.control("pause", "c").error == "job 'c' is not executing: it is pending")
    run.advance(to: 2)
    #expect(run.control("pause", "a").error == "job 'a' is not executing: it has finished (succeeded)")
    #expect(run.control("continue", "a").error == "job 'a' is not executing: it has finished (succeeded)")
    #expect(run.control("continue", "b").error == "job 'b' is not paused")
    #expect(run.backend.signals.isEmpty)
    #expect(!run.events.lines.contains { $0.hasSuffix(" paused") || $0.hasSuffix(" continued") })
  }

  @Test func pausingAPausedJobOrOneBeingEndedIsRefused() {
    let run = DriverHarness("jobs: {a: {command: build}, b: {command: test}, c: {command: lint, timeout: 1}}")
    run.backend.scripts = [
      "build": FakeCommand(duration: 10), "test": FakeCommand(duration: 10, onSignal: .ignores),
      "lint": FakeCommand(duration: 10, onSignal: .ignores),
    ]
    run.start()
    #expect(run.control("pause", "a").ok)
    #expect(run.control("pause", "a").error == "job 'a' is already paused")
    run.control("cancel", "b")
    #expect(run.control("pause", "b").error == "job 'b' is cancelled and ending")
    run.advance(to: 1)
    #expect(run.control("pause", "c").error == "job 'c' has timed out and is ending")
  }

  /// "a request naming several jobs where one is bad changes nothing"
  @Test func pausingSeveralJobsWhereOneIsNotExecutingPausesNone() {
    let run = DriverHarness("max-concurrent: 2\njobs: {a: {command: build}, b: {command: test}, c: {command: lint}}")
    run.start()
    let exchange = run.control("pause", "a", "c", "b")
    #expect(exchange.error == "job 'c' is not executing: it is ready")
    #expect(run.backend.signals.isEmpty)
    #expect(run.control("pause", "a", "b", "a").ok)
    #expect(run.events.lines.filter { $0.hasSuffix(" paused") } == ["a paused", "b paused"])
    #expect(run.control("continue", "a", "c").error == "job 'c' is not executing: it is ready")
    #expect(run.backend.stopped == ["build", "test"])
  }
}
