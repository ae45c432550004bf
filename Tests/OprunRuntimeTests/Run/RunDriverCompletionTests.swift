import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Completion commands: a job's completion block, run by the driver after the job finishes.
@Suite struct RunDriverCompletionTests {
  /// §1 "completion block: runs after the job finishes, whatever the outcome" — also when
  /// its queue finishes the job without running it, at once, and even when nothing else is
  /// left to happen in the run.
  @Test func completionOfAJobFinishedWithoutRunningStartsAsItFinishes() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: fail}
        b: {command: test, dependencies: [a], completion: notify}
      """)
    run.backend.scripts["fail"] = FakeCommand(duration: 1, termination: .exited(1))
    run.start()
    run.advance(by: 1)
    #expect(run.events.lines(of: "b").suffix(2) == ["b ready>finished cancelled", "b completion-started"])
    #expect(run.events.time(of: "b completion-started") == 1)
    #expect(!run.driver.isFinished)
    #expect(run.runToEnd() == 1)
    #expect(run.events.time(of: "b completion exited 0") == 2)
    #expect(run.events.lines.last == "run-finished 1")
  }

  /// §1 "completion block: runs after the job finishes, whatever the outcome"; §2 "completion
  /// commands also get `OPRUN_JOB_STATUS` (succeeded, failed, cancelled, skipped, timed-out)
  /// and `OPRUN_EXIT_CODE`." (Cancelled: ``RunDriverCancellationTests``.)
  @Test func completionRunsAfterEveryOutcomeWithTheJobsStatusAndExitCode() {
    let run = DriverHarness(
      """
      on-failure: continue
      jobs:
        ok: {command: build, completion: notify-ok}
        bad: {command: fail, completion: notify-bad}
        slow: {command: hang, timeout: 2, completion: notify-slow}
        skip: {command: test, dependencies: [bad], completion: notify-skip}
      """)
    run.backend.scripts["fail"] = FakeCommand(duration: 1.5, termination: .exited(3))
    run.backend.scripts["hang"] = FakeCommand(duration: 100)
    run.start()
    #expect(run.runToEnd() == 1)
    let expected: [(job: String, status: String, exitCode: String, at: Double)] = [
      ("ok", "succeeded", "0", 1), ("bad", "failed", "3", 1.5), ("slow", "timed-out", "\(128 + SIGTERM)", 2),
      ("skip", "skipped", "", 1.5),
    ]
    for (job, status, exitCode, time) in expected {
      let orders = run.backend.completionOrders(of: run.id(job))
      #expect(orders.map(\.commands) == [["notify-\(job)"]], "\(job)")
      #expect(orders.first?.value(of: "OPRUN_JOB_STATUS") == status, "\(job)")
      #expect(orders.first?.value(of: "OPRUN_EXIT_CODE") == exitCode, "\(job)")
      #expect(orders.first?.value(of: "OPRUN_JOB") == job, "\(job)")
      #expect(run.events.time(of: "\(job) completion-started") == time, "\(job)")
    }
  }

  /// "completion block: runs after the job finishes" — outside every queue's limit, as a
  /// completion block does; the run ends when the last completion has exited.
  @Test func completionRunsOutsideItsQueuesLimit() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        a: {command: build, completion: notify}
        b: {command: test}
      """)
    run.backend.scripts["notify"] = FakeCommand(duration: 10)
    run.start()
    run.advance(by: 1.5)
    #expect(run.backend.running == ["notify", "test"])
    #expect(run.events.time(of: "b ready>executing") == 1)
    run.advance(to: 10.5)
    #expect(run.backend.running == ["notify"])
    #expect(!run.driver.isFinished)
    #expect(run.runToEnd() == 0)
    #expect(run.events.time(of: "a completion exited 0") == 11)
    #expect(run.events.all.last?.time == 11)
  }

  /// "completion block: runs after the job finishes, whatever the outcome" — one that cannot
  /// start is reported in the job's output and in its `completion` event, with no exit
  /// status made up, and changes no outcome.
  @Test func completionThatCannotStartIsReportedWithItsReason() {
    let run = DriverHarness("jobs: {a: {command: build, completion: notfy}}")
    run.backend.scripts["notfy"] = FakeCommand(startFailure: "cannot run 'notfy': no such file")
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(
      Array(run.events.lines(of: "a").suffix(3)) == [
        "a executing>finished succeeded", "a output oprun: completion: cannot run 'notfy': no such file",
        "a completion not started: cannot run 'notfy': no such file",
      ])
    #expect(run.events.time(of: "a completion not started: cannot run 'notfy': no such file") == 1)
  }

  /// §2 "Job output (stdout and stderr of its commands) is captured through pipes and never
  /// lost" — a completion's output is its job's.
  @Test func completionOutputIsTheJobs() {
    let run = DriverHarness("jobs: {a: {command: build, completion: notify}}")
    run.backend.scripts["notify"] = FakeCommand(output: ["sent"])
    run.start()
    run.runToEnd()
    #expect(run.events.lines(of: "a").suffix(3) == ["a completion-started", "a output sent", "a completion exited 0"])
  }

  /// §1 "completion block: runs after the job finishes" — once, after its last attempt,
  /// which its `OPRUN_ATTEMPT` names.
  @Test func completionRunsOnceAfterTheLastAttempt() {
    let run = DriverHarness("jobs: {a: {command: build, retries: 2, completion: notify}}")
    run.backend.nextScripts["build"] = [FakeCommand(duration: 1, termination: .exited(1))]
    run.start()
    #expect(run.runToEnd() == 0)
    let orders = run.backend.completionOrders(of: run.id("a"))
    #expect(orders.count == 1)
    #expect(orders.first?.value(of: "OPRUN_ATTEMPT") == "2")
    #expect(orders.first?.value(of: "OPRUN_JOB_STATUS") == "succeeded")
    #expect(run.events.time(of: "a completion-started") == 2)
  }
}
