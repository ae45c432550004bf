import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Ctrl-C and SIGTERM as the driver sees them: ``RunCommand/cancelRun(reason:endingSignal:)``
/// (SPEC §3.4).
@Suite struct RunDriverCancellationTests {
  /// "The first SIGINT or SIGTERM cancels every queue (`cancelAllOperations`):"
  @Test func firstCancelRunCancelsEveryJobOfEveryQueue() {
    let run = DriverHarness(
      """
      queues: {net: {max-concurrent: 1}}
      jobs:
        a: {command: build}
        b: {command: fetch, queue: net}
        c: {command: test, dependencies: [a]}
        d: {command: upload, queue: net, dependencies: [b]}
      """)
    run.start()
    run.advance(by: 0.5)
    run.driver.apply(.cancelRun(reason: .terminate, endingSignal: SIGTERM))
    #expect(
      run.events.lines.filter { $0.contains(" cancelled ") } == [
        "a cancelled terminate", "b cancelled terminate", "c cancelled terminate", "d cancelled terminate",
      ])
    #expect(run.runToEnd() == 128 + SIGTERM)
    #expect(
      run.events.transitions.filter { $0.to == .finished }.map(\.outcome) == Array(repeating: .cancelled, count: 4))
  }

  /// "a job that has not started is marked cancelled, its dependencies are ignored, it
  /// becomes ready, and its start finishes it at once without running its command
  /// (pending → ready → finished, outcome cancelled), printed as it happens;"
  @Test func jobThatHasNotStartedFinishesCancelledAtOnceWithoutRunning() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
      """)
    run.backend.scripts["build"] = FakeCommand(duration: 10, onSignal: .exits(after: 3, .exited(1)))
    run.start()
    run.advance(by: 0.5)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    // b does not wait for a, which cleans up until 3.5.
    #expect(run.events.lines(of: "b") == ["b cancelled interrupt", "b pending>ready", "b ready>finished cancelled"])
    #expect(run.events.time(of: "b ready>finished cancelled") == 0.5)
    #expect(run.events.time(of: "b pending>ready") == 0.5)
    run.runToEnd()
    #expect(run.events.time(of: "a executing>finished cancelled") == 3.5)
    #expect(run.backend.orders.map(\.commands) == [["build"]])
  }

  /// "an executing job is marked cancelled and the same signal is sent to its process group;"
  @Test(arguments: [(CancelReason.interrupt, SIGINT, JobSignal.interrupt), (.terminate, SIGTERM, .terminate)])
  func executingJobGetsTheSignalTheRunWasCancelledBy(reason: CancelReason, number: Int32, signal: JobSignal) {
    let run = DriverHarness("jobs: {a: {commands: [one, two]}}")
    run.backend.scripts = ["one": FakeCommand(duration: 10), "two": FakeCommand(duration: 10)]
    run.start()
    run.advance(by: 2)
    run.driver.apply(.cancelRun(reason: reason, endingSignal: number))
    #expect(run.events.lines(of: "a").contains("a cancelled \(reason.rawValue)"))
    #expect(run.backend.signalLines == ["one \(signal)@2.0", "two \(signal)@2.0"])
    #expect(run.backend.signals.map(\.handle) == [run.backend.handle(of: "one"), run.backend.handle(of: "two")])
    run.runToEnd()
    let finished = run.events.transitions(of: "a").last!
    #expect(finished.outcome == .cancelled)
    #expect(finished.termination == .signalled(number))
    #expect(run.events.time(of: "a executing>finished cancelled") == 2)
  }

  /// "if it has not exited after a grace period (`--grace`, default 5 s) it gets SIGKILL;"
  @Test(arguments: [5.0, 3.0])
  func cancelledJobThatIgnoresTheSignalGetsSIGKILLExactlyAtTheGrace(grace: Double) {
    let run = DriverHarness("jobs: {a: {command: serve}}", grace: grace)
    run.backend.scripts["serve"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(by: 2)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.advance(to: 2 + grace - 0.5)
    #expect(run.backend.signalLines == ["serve interrupt@2.0"])
    #expect(run.backend.running == ["serve"])
    run.advance(to: 2 + grace)
    #expect(run.backend.signalLines == ["serve interrupt@2.0", "serve kill@\(2 + grace)"])
    #expect(run.runToEnd() == 128 + SIGINT)
    #expect(run.events.transitions(of: "a").last?.termination == .signalled(SIGKILL))
    #expect(run.events.time(of: "a executing>finished cancelled") == 2 + grace)
  }

  /// "an executing job is marked cancelled": it finishes cancelled however it exits.
  @Test func cancelledJobThatExitsZeroStillFinishesCancelled() {
    let run = DriverHarness("jobs: {a: {command: build}}")
    run.backend.scripts["build"] = FakeCommand(duration: 10, onSignal: .exits(after: 1, .exited(0)))
    run.start()
    run.advance(by: 2)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.runToEnd()
    let finished = run.events.transitions(of: "a").last!
    #expect(finished.outcome == .cancelled)
    #expect(finished.termination == .exited(0))
    #expect(run.events.time(of: "a executing>finished cancelled") == 3)
    #expect(run.driver.engine.counts[.cancelled] == 1 && run.driver.engine.counts[.succeeded] == 0)
  }

  /// "as in Foundation, a cancelled job still passes through its queue: it finishes when
  /// its queue starts it, which takes a free slot;"
  @Test func cancelledQueuedJobFinishesOnlyWhenItsQueueHasAFreeSlot() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        a: {command: build}
        b: {command: test}
      """)
    run.backend.scripts["build"] = FakeCommand(duration: 10, onSignal: .exits(after: 2, .exited(1)))
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    #expect(run.events.lines(of: "b") == ["b pending>ready", "b cancelled interrupt"])
    run.runToEnd()
    #expect(run.events.time(of: "a executing>finished cancelled") == 3)
    #expect(run.events.time(of: "b ready>finished cancelled") == 3)
    let lines = run.events.lines
    #expect(
      lines.firstIndex(of: "a executing>finished cancelled")! < lines.firstIndex(of: "b ready>finished cancelled")!)
  }

  /// "cancelling also resumes a suspended queue so it can drain;"
  @Test func cancelRunResumesASuspendedQueueSoItDrains() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        a: {command: build}
        b: {command: test}
      """)
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.start()
    run.driver.apply(.toggleSuspension)
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    #expect(run.events.lines.contains("queue jobs resumed"))
    #expect(run.events.time(of: "queue jobs resumed") == 1)
    #expect(run.runToEnd() == 128 + SIGINT)
    #expect(run.events.time(of: "b ready>finished cancelled") == 1)
  }

  /// "completion commands still run, for cancelled jobs too;"
  @Test func completionsStillRunForCancelledJobs() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: build, completion: notify-a}
        b: {command: test, dependencies: [a], completion: notify-b}
      """)
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.runToEnd()
    let a = run.backend.completionOrders(of: run.id("a"))
    let b = run.backend.completionOrders(of: run.id("b"))
    #expect(a.map(\.commands) == [["notify-a"]])
    #expect(a.first?.value(of: "OPRUN_JOB_STATUS") == "cancelled")
    #expect(a.first?.value(of: "OPRUN_EXIT_CODE") == "\(128 + SIGINT)")
    #expect(b.map(\.commands) == [["notify-b"]])
    #expect(b.first?.value(of: "OPRUN_JOB_STATUS") == "cancelled")
    #expect(b.first?.value(of: "OPRUN_EXIT_CODE") == "")
    #expect(run.events.time(of: "a completion-started") == 1)
    #expect(run.events.time(of: "b completion-started") == 1)
    #expect(run.events.lines.contains("a completion exited 0"))
    #expect(run.events.lines.contains("b completion exited 0"))
  }

  /// "once every child is reaped, oprun ends by the signal it received (it restores the
  /// default action and re-raises it, as make does), so a calling shell sees 130 or 143 and
  /// stops its own loop; the summary and the event stream are complete before that."
  @Test(arguments: [(CancelReason.interrupt, SIGINT), (.terminate, SIGTERM)])
  func runEndsByItsSignalOnceEveryCommandAndCompletionHasExited(reason: CancelReason, signal: Int32) {
    let run = DriverHarness("jobs: {a: {command: serve, completion: notify}}")
    run.backend.scripts["serve"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: reason, endingSignal: signal))
    run.advance(to: 5.5)
    #expect(!run.driver.isFinished)  // serve is killed at 6
    run.advance(to: 6)
    #expect(run.backend.running == ["notify"])
    #expect(!run.driver.isFinished)  // its completion runs until 7
    run.advance(by: 1)
    #expect(run.driver.isFinished)
    #expect(run.driver.endingSignal == signal)
    #expect(run.driver.finish() == 128 + signal)
    #expect(run.events.lines.last == "run-finished \(128 + signal)")
    #expect(run.events.all.last?.time == 7)
    #expect(run.backend.runEnded)
  }

  /// "A second SIGINT kills every process group at once, skips completions, and ends the
  /// same way." — every process group: jobs, completions and what they left behind.
  @Test func secondCancelRunKillsEveryProcessAtOnce() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: serve}
        b: {command: quick, completion: slow-notify}
        c: {command: spawn-daemon}
      """)
    run.backend.scripts = [
      "serve": FakeCommand(duration: 100, onSignal: .ignores),
      "quick": FakeCommand(duration: 0.5),
      "slow-notify": FakeCommand(duration: 100, onSignal: .ignores),
      "spawn-daemon": FakeCommand(duration: 0.5, leavesProcessBehind: true),
    ]
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.advance(by: 1)
    #expect(run.backend.liveGroups == ["serve", "spawn-daemon", "slow-notify"])
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    #expect(run.backend.broadcasts.map(\.signal) == [.kill])
    #expect(run.backend.broadcasts.map(\.time) == [2])
    run.advance(by: 0)
    #expect(run.backend.liveGroups.isEmpty)
    #expect(run.events.time(of: "a executing>finished cancelled") == 2)
    #expect(run.events.time(of: "b completion signalled 9") == 2)
    #expect(run.driver.isFinished)
  }

  /// "A second SIGINT kills every process group at once, skips completions, and ends the
  /// same way." — no completion starts after it.
  @Test func secondCancelRunSkipsCompletions() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        a: {command: serve, completion: notify-a}
        b: {command: test, completion: notify-b}
      """)
    run.backend.scripts["serve"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.runToEnd()
    // a is killed and b drains through the freed slot; neither completion starts.
    #expect(run.events.lines(of: "a").contains("a executing>finished cancelled"))
    #expect(run.events.lines(of: "b").contains("b ready>finished cancelled"))
    #expect(run.backend.orders.filter { $0.work.purpose == .completion }.isEmpty)
    #expect(!run.events.lines.contains { $0.hasSuffix("completion-started") })
  }

  /// "A second SIGINT kills every process group at once, skips completions, and ends the
  /// same way." — by the signal of the first, whatever the second was.
  @Test func secondCancelRunEndsTheRunByTheFirstSignal() {
    let run = DriverHarness("jobs: {a: {command: serve}}")
    run.backend.scripts["serve"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .terminate, endingSignal: SIGTERM))
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.advance(by: 0)
    #expect(run.driver.isFinished)
    #expect(run.driver.finish() == 128 + SIGTERM)
    #expect(run.events.lines.last == "run-finished \(128 + SIGTERM)")
  }

  /// "A second SIGINT kills every process group at once, skips completions, and ends the
  /// same way." — even when the queues were suspended again after the first.
  @Test func secondCancelRunEndsARunSuspendedAfterTheFirst() throws {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        a: {command: serve}
        b: {command: test}
      """)
    run.backend.scripts["serve"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.driver.apply(.toggleSuspension)
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.advance(by: 0)
    #expect(
      run.events.lines.suffix(3) == [
        "queue jobs resumed", "a executing>finished cancelled", "b ready>finished cancelled",
      ])
    #expect(run.events.time(of: "b ready>finished cancelled") == 2)
    try #require(run.driver.isFinished)
    #expect(run.driver.finish() == 128 + SIGINT)
  }
}

/// SPEC §2: "a closed standard output is what SIGPIPE means to a Unix filter: the run is
/// cancelled as by SIGTERM and oprun ends by SIGPIPE."
@Suite struct RunDriverOutputClosedTests {
  @Test func closedStandardOutputCancelsTheRunAsSIGTERMAndEndsItBySIGPIPE() {
    let run = DriverHarness("jobs: {a: {command: build}, b: {command: test, dependencies: [a]}}")
    run.backend.scripts["build"] = FakeCommand(duration: 100)
    run.start()
    run.driver.apply(.outputClosed)
    #expect(run.events.lines(of: "a").contains("a cancelled terminate"))
    #expect(run.runToEnd() == 128 + SIGPIPE)
    #expect(run.backend.signalLines.first == "build terminate@0.0")
    #expect(run.events.lines(of: "b").last == "b ready>finished cancelled")
  }

  @Test func closedStandardOutputAfterACtrlCKillsNothingMore() {
    let run = DriverHarness("jobs: {a: {command: build}}", grace: 5)
    run.backend.scripts["build"] = FakeCommand(duration: 100, onSignal: .exits(after: 2, .exited(0)))
    run.start()
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.driver.apply(.outputClosed)
    #expect(run.backend.broadcasts.isEmpty)
    #expect(run.runToEnd() == 128 + SIGINT)
    #expect(run.events.time(of: "a executing>finished cancelled") == 2)
  }
}
