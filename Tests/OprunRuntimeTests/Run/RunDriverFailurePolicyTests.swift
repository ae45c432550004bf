import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// What a failure sets off, and how a run's exit status is decided (SPEC §3.5).
@Suite struct RunDriverFailurePolicyTests {
  /// "`stop` (default) starts nothing new after the first failure and cancels what has not
  /// started, letting running jobs finish;"
  @Test func stopStartsNothingNewAndLetsRunningJobsFinish() {
    let run = DriverHarness(
      """
      max-concurrent: 2
      jobs:
        bad: {command: fail}
        slow: {command: build}
        queued: {command: lint}
        next: {command: test, dependencies: [slow]}
      """)
    run.backend.scripts["fail"] = FakeCommand(duration: 1, termination: .exited(1))
    run.backend.scripts["build"] = FakeCommand(duration: 3)
    run.start()
    run.advance(by: 1)
    #expect(
      run.events.lines(of: "queued") == [
        "queued pending>ready", "queued cancelled failure-policy", "queued ready>finished cancelled",
      ])
    #expect(
      run.events.lines(of: "next") == [
        "next cancelled failure-policy", "next pending>ready", "next ready>finished cancelled",
      ])
    #expect(run.events.time(of: "queued ready>finished cancelled") == 1)
    #expect(run.events.time(of: "next ready>finished cancelled") == 1)
    #expect(run.runToEnd() == 1)
    #expect(run.events.lines(of: "slow").last == "slow executing>finished succeeded")
    #expect(run.events.time(of: "slow executing>finished succeeded") == 3)
    #expect(run.backend.signals.isEmpty)
    #expect(run.backend.orders.map(\.commands) == [["fail"], ["build"]])
  }

  /// "`stop` (default) starts nothing new after the first failure" — but for the jobs whose
  /// `run-if` (always, failure) makes them run after failures (SPEC §3.1).
  @Test func runIfAlwaysAndFailureJobsStillRunUnderStop() {
    let run = DriverHarness(
      """
      jobs:
        bad: {command: fail}
        report: {command: collect-logs, dependencies: [bad], run-if: always}
        rescue: {command: roll-back, dependencies: [bad], run-if: failure}
        deploy: {command: ship, dependencies: [bad]}
      """)
    run.backend.scripts["fail"] = FakeCommand(duration: 1, termination: .exited(1))
    run.start()
    #expect(run.runToEnd() == 1)
    #expect(run.events.lines(of: "report").last == "report executing>finished succeeded")
    #expect(run.events.lines(of: "rescue").last == "rescue executing>finished succeeded")
    #expect(run.events.lines(of: "deploy").last == "deploy ready>finished cancelled")
    #expect(run.backend.orders.map(\.commands) == [["fail"], ["collect-logs"], ["roll-back"]])
  }

  /// "`continue` runs everything whose `run-if` allows;" — from the manifest or `-k`.
  @Test(arguments: [("continue", nil), ("stop", FailurePolicy.continue)])
  func continueRunsEverythingWhoseRunIfAllows(manifestPolicy: String, flag: FailurePolicy?) {
    let run = DriverHarness(
      """
      max-concurrent: 1
      on-failure: \(manifestPolicy)
      jobs:
        bad: {command: fail}
        other: {command: lint}
        deploy: {command: ship, dependencies: [bad]}
        rescue: {command: roll-back, dependencies: [bad], run-if: failure}
      """, failurePolicy: flag)
    run.backend.scripts["fail"] = FakeCommand(duration: 1, termination: .exited(1))
    run.start()
    #expect(run.runToEnd() == 1)
    #expect(run.events.lines(of: "other").last == "other executing>finished succeeded")
    #expect(
      run.events.lines(of: "deploy") == [
        "deploy pending>ready", "deploy cancelled dependency-failed", "deploy ready>finished skipped",
      ])
    #expect(run.events.lines(of: "rescue").last == "rescue executing>finished succeeded")
    #expect(run.backend.orders.map(\.commands) == [["fail"], ["lint"], ["roll-back"]])
  }

  /// "`cancel-all` cancels running jobs too, as Ctrl-C does." — from the manifest or
  /// `--fail-fast`; the run still ends by its exit status, not by a signal.
  @Test(arguments: [("cancel-all", nil), ("stop", FailurePolicy.cancelAll)])
  func cancelAllCancelsRunningJobsToo(manifestPolicy: String, flag: FailurePolicy?) {
    let run = DriverHarness(
      """
      max-concurrent: 2
      on-failure: \(manifestPolicy)
      jobs:
        bad: {command: fail, completion: notify}
        slow: {command: build}
        queued: {command: lint}
        report: {command: collect-logs, dependencies: [bad], run-if: always}
      """, failurePolicy: flag, grace: 2)
    run.backend.scripts["fail"] = FakeCommand(duration: 1, termination: .exited(1))
    run.backend.scripts["build"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.start()
    run.advance(by: 1)
    #expect(
      run.events.lines.filter { $0.contains(" cancelled ") } == [
        "slow cancelled failure-policy", "queued cancelled failure-policy", "report cancelled failure-policy",
      ])
    #expect(run.backend.signalLines == ["build terminate@1.0"])
    #expect(run.runToEnd() == 1)
    #expect(run.backend.signalLines == ["build terminate@1.0", "build kill@3.0"])
    #expect(run.events.lines(of: "slow").last == "slow executing>finished cancelled")
    #expect(run.events.lines(of: "queued").last == "queued ready>finished cancelled")
    #expect(run.events.lines(of: "report").last == "report ready>finished cancelled")
    #expect(run.backend.orders.map(\.commands) == [["fail"], ["build"], ["notify"]])
    #expect(run.driver.endingSignal == nil)
  }

  /// "A cancelled job has not failed: it sets off no `on-failure` policy" — here a job
  /// skipped by its `run-if` (cancelled, reason `dependency-failed`) under `stop`: no
  /// command cancels one job alone yet, and when every job is cancelled no policy shows.
  @Test func cancelledJobSetsOffNoFailurePolicy() {
    let run = DriverHarness(
      """
      on-failure: stop
      jobs:
        a: {command: build}
        rescue: {command: roll-back, dependencies: [a], run-if: failure}
        test: {command: test, dependencies: [a]}
        deploy: {command: ship, dependencies: [test]}
      """)
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.events.lines(of: "rescue").last == "rescue ready>finished skipped")
    #expect(run.events.lines(of: "deploy").last == "deploy executing>finished succeeded")
    #expect(!run.events.lines.contains { $0.hasSuffix("failure-policy") })
  }

  /// "A cancelled job has not failed: … and its dependents follow their `run-if`."
  @Test func dependentsOfACancelledJobFollowTheirRunIf() {
    let run = DriverHarness(
      """
      jobs:
        bad: {command: fail}
        slow: {command: build}
        next: {command: test, dependencies: [slow]}
        cleanup: {command: clean, dependencies: [next], run-if: always}
        rescue: {command: roll-back, dependencies: [next], run-if: failure}
      """)
    run.backend.scripts["fail"] = FakeCommand(duration: 1, termination: .exited(1))
    run.backend.scripts["build"] = FakeCommand(duration: 10)
    run.start()
    run.advance(by: 1)
    // The failure cancels `next` (stop); `cleanup` and `rescue`, whose run-if holds after a
    // cancelled dependency, start as it finishes, without waiting for `slow`.
    #expect(run.events.lines(of: "next").last == "next ready>finished cancelled")
    #expect(run.events.time(of: "cleanup ready>executing") == 1)
    #expect(run.events.time(of: "rescue ready>executing") == 1)
    #expect(run.runToEnd() == 1)
    #expect(run.events.lines(of: "cleanup").last == "cleanup executing>finished succeeded")
    #expect(run.events.lines(of: "rescue").last == "rescue executing>finished succeeded")
  }

  /// "Exit status: 0 when every job succeeded or was skipped by its `run-if`,"
  @Test func exitStatusIsZeroWhenEveryJobSucceededOrWasSkippedByItsRunIf() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: build}
        rescue: {command: roll-back, dependencies: [a], run-if: failure}
      """)
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.driver.engine.counts[.skipped] == 1)
    #expect(run.events.lines.last == "run-finished 0")
  }

  /// "1 when any failed or was cancelled" — failed, timed out, or cancelled by a failure.
  @Test(arguments: [FakeCommand(termination: .exited(2)), FakeCommand(duration: 100)])
  func exitStatusIsOneWhenAnyJobFailed(script: FakeCommand) {
    let run = DriverHarness(
      """
      jobs:
        a: {command: build}
        b: {command: build-more, timeout: 10}
        c: {command: test, dependencies: [b]}
      """)
    run.backend.scripts["build-more"] = script
    run.start()
    #expect(run.runToEnd() == 1)
    #expect(run.events.lines.last == "run-finished 1")
    #expect(run.events.lines(of: "a").last == "a executing>finished succeeded")
  }
}
