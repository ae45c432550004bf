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
}
