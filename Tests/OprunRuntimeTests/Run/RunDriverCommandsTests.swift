import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// A job with several commands: one operation whose commands run concurrently.
@Suite struct RunDriverCommandsTests {
  /// §1 "several commands: run concurrently, the job finishes when all do"
  @Test func commandsOfAJobRunConcurrentlyAndItFinishesWhenAllHaveExited() {
    let run = DriverHarness("jobs: {a: {commands: [one, two, three]}}")
    run.backend.scripts = [
      "one": FakeCommand(duration: 1), "two": FakeCommand(duration: 3), "three": FakeCommand(duration: 2),
    ]
    run.start()
    #expect(run.backend.orders.map(\.commands) == [["one", "two", "three"]])
    run.advance(by: 0.5)
    #expect(run.backend.running == ["one", "two", "three"])
    run.advance(to: 2.5)
    #expect(run.events.lines(of: "a").last == "a ready>executing")
    #expect(run.runToEnd() == 0)
    #expect(run.events.time(of: "a executing>finished succeeded") == 3)
    #expect(run.events.transitions(of: "a").last?.duration == 3)
  }

  /// §3.2 "a job with several `commands` counts as one operation (its commands run
  /// concurrently, as a block operation's blocks do)."
  @Test func jobWithSeveralCommandsHoldsOneSlotOfItsQueue() {
    let run = DriverHarness(
      """
      max-concurrent: 2
      jobs:
        a: {commands: [one, two, three]}
        b: {command: four}
        c: {command: five}
      """)
    run.start()
    #expect(run.backend.running == ["one", "two", "three", "four"])
    #expect(run.events.lines(of: "c") == ["c pending>ready"])
    run.advance(by: 1)
    #expect(run.events.time(of: "c ready>executing") == 1)
  }

  /// §2 "finished shows the outcome — succeeded, failed (exit code or signal)": the first
  /// command to fail decides the outcome and how the attempt ended.
  @Test func firstCommandToFailDecidesTheOutcomeAndTheTermination() {
    let run = DriverHarness("jobs: {a: {commands: [one, two, three]}}")
    run.backend.scripts = [
      "one": FakeCommand(duration: 2, termination: .exited(2)),
      "two": FakeCommand(duration: 1, termination: .signalled(SIGSEGV)),
      "three": FakeCommand(duration: 3),
    ]
    run.start()
    #expect(run.runToEnd() == 1)
    let finished = run.events.transitions(of: "a").last!
    #expect(finished.outcome == .failed)
    #expect(finished.termination == .signalled(SIGSEGV))
    #expect(run.events.time(of: "a executing>finished failed") == 3)
  }

  /// A command that cannot start fails the attempt, with the reason in the job's output and
  /// in its `finished` transition, never a made-up exit status; the job's other commands
  /// run on, and only the ones that started have pids.
  @Test func commandThatCannotStartFailsTheJobWithItsReasonAfterTheOthersEnd() {
    let run = DriverHarness("jobs: {a: {commands: [good, missing]}}")
    run.backend.scripts = [
      "good": FakeCommand(duration: 3), "missing": FakeCommand(startFailure: "cannot run 'missing': no such file"),
    ]
    run.start()
    #expect(run.events.transitions(of: "a").first { $0.to == .executing }?.pids == [run.backend.handle(of: "good")!.id])
    #expect(run.events.lines(of: "a").contains("a output oprun: cannot run 'missing': no such file"))
    run.advance(by: 2.5)
    #expect(run.backend.running == ["good"])
    #expect(run.runToEnd() == 1)
    let finished = run.events.transitions(of: "a").last!
    #expect(finished.outcome == .failed)
    #expect(finished.termination == .notStarted("cannot run 'missing': no such file"))
    #expect(finished.termination?.exitCode == nil && finished.termination?.signal == nil)
    #expect(run.events.time(of: "a executing>finished failed") == 3)
  }

  /// When none of a job's commands can start, the job never executes: it finishes failed at
  /// once, with the reason, and the run goes on.
  @Test func jobNoneOfWhoseCommandsCanStartFailsAtOnceWithoutExecuting() {
    let run = DriverHarness(
      """
      on-failure: continue
      jobs:
        a: {commands: [nope, nada], retries: 2}
        b: {command: test, dependencies: [a]}
        c: {command: lint}
      """)
    run.backend.scripts["nope"] = FakeCommand(startFailure: "cannot run 'nope'")
    run.backend.scripts["nada"] = FakeCommand(startFailure: "cannot run 'nada'")
    run.start()
    #expect(
      run.events.lines(of: "a") == [
        "a pending>ready", "a output oprun: cannot run 'nope'", "a output oprun: cannot run 'nada'",
        "a ready>finished failed",
      ])
    #expect(run.events.transitions(of: "a").last?.termination == .notStarted("cannot run 'nope'"))
    #expect(run.backend.orders.count(where: { $0.work.job == run.id("a") }) == 1)
    #expect(run.events.lines(of: "b").last == "b ready>finished skipped")
    #expect(run.runToEnd() == 1)
    #expect(run.events.lines(of: "c").last == "c executing>finished succeeded")
  }

  /// Out of descriptors while others run: the launch keeps its slot and is tried again when
  /// one of them ends, and then runs.
  @Test func launchShortOfResourcesWaitsForARunningCommandToEndThenStarts() {
    let run = DriverHarness("max-concurrent: 3\njobs: {a: {command: long}, b: {command: short}, c: {command: later}}")
    run.backend.scripts["long"] = FakeCommand(duration: 5)
    run.backend.scripts["short"] = FakeCommand(duration: 2)
    run.backend.nextScripts["later"] = [
      FakeCommand(startFailure: "pipe2: Too many open files (EMFILE)", startFailureMayPassLater: true)
    ]
    run.start()
    #expect(run.events.lines(of: "c") == ["c pending>ready"])
    #expect(run.driver.engine.runningCount(queue: 0) == 3)
    run.advance(by: 2)
    #expect(run.events.lines(of: "c") == ["c pending>ready", "c ready>executing"])
    #expect(run.events.time(of: "c ready>executing") == 2)
    #expect(run.runToEnd() == 0)
    #expect(run.events.lines(of: "c").last == "c executing>finished succeeded")
  }

  /// Short of resources with nothing else running, nothing will give any back: the job
  /// fails at once, with the reason, rather than wait forever.
  @Test func launchShortOfResourcesWithNothingElseRunningFailsWithTheReason() {
    let run = DriverHarness("jobs: {a: {command: long}, b: {command: later, dependencies: [a]}}")
    run.backend.scripts["later"] = FakeCommand(
      startFailure: "pipe2: Too many open files (EMFILE)", startFailureMayPassLater: true)
    run.start()
    #expect(run.runToEnd() == 1)
    #expect(run.events.lines(of: "b").last == "b ready>finished failed")
    #expect(run.events.transitions(of: "b").last?.termination == .notStarted("pipe2: Too many open files (EMFILE)"))
  }

  /// A launch waiting for resources when the run is cancelled finishes cancelled once
  /// something ends, without starting.
  @Test func launchWaitingForResourcesWhenTheRunIsCancelledFinishesCancelled() {
    let run = DriverHarness("jobs: {a: {command: long}, b: {command: later}}")
    run.backend.scripts["long"] = FakeCommand(duration: 5)
    run.backend.scripts["later"] = FakeCommand(
      startFailure: "pipe2: Too many open files (EMFILE)", startFailureMayPassLater: true)
    run.start()
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    #expect(run.runToEnd() == 130)
    #expect(run.events.lines(of: "b").last == "b ready>finished cancelled")
    #expect(run.backend.orders.count(where: { $0.work.job == run.id("b") }) == 1)
  }
}
