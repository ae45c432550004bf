import Foundation
import Testing

/// `timeout` and `retries` (SPEC §3.5).
@Suite struct TimeoutAndRetryTests {
  @Test func aJobPastItsTimeoutGetsSIGTERMAndFinishesTimedOut() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        slow: {command: sleep 30, timeout: 300ms}
      """)
    let run = try runOprun(runArguments(["--grace", "5"]), in: folder)
    #expect(run.status == 1)
    let log = folder.events
    let finish = try #require(log.finish(of: "slow"))
    #expect(finish.string("outcome") == "timed-out")
    #expect(finish.int("signal") == Int(SIGTERM))
    #expect(finish.isNull("exit_code"))
    #expect(log.cancelReason(of: "slow") == "timeout")
    #expect(log.named("run-finished").first?["counts"].flatMap { ($0 as? [String: Any])?.int("timed-out") } == 1)
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }

  @Test func aTimedOutJobThatTrapsSIGTERMGetsSIGKILLAfterTheGrace() throws {
    let folder = try Scratch()
    // The job says `ready` once its trap is set, and the test waits for that, then for the
    // trap's own file. The trap must still beat the timeout: oprun's timer starts at the
    // spawn, and nothing outside oprun can hold it back. Both files are written by the shell
    // itself, not by a `touch` it would have to start, so that the trap's file is there
    // well before the grace ends.
    try folder.manifest(
      """
      jobs:
        stubborn:
          command: trap 'echo > got-term' TERM; echo > ready; while :; do sleep 0.05; done
          timeout: 300ms
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "0.5"]), in: folder)
    try folder.waitUntilExists("ready")
    try folder.waitUntilExists("got-term")
    let run = oprun.wait()
    #expect(run.status == 1)
    let log = folder.events
    let finish = try #require(log.finish(of: "stubborn"))
    #expect(finish.string("outcome") == "timed-out")
    #expect(finish.int("signal") == Int(SIGKILL))
    #expect(folder.exists("got-term"), "SIGTERM came first")
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }

  @Test func aFailedJobIsRetriedWithTheAttemptInItsEnvironment() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        flaky:
          command: echo "$OPRUN_ATTEMPT" >> attempts; [ "$OPRUN_ATTEMPT" -ge 2 ]
          retries: 3
        after:
          command: touch after.ran
          dependencies: [flaky]
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0)
    #expect(folder.read("attempts") == "1\n2\n")
    let log = folder.events
    let finish = try #require(log.finish(of: "flaky"))
    #expect(finish.string("outcome") == "succeeded")
    #expect(finish.int("attempt") == 2)
    // The failed attempt goes back to ready, not to finished.
    let retry = log.named("transition", job: "flaky").first {
      $0.string("from") == "executing" && $0.string("to") == "ready"
    }
    #expect(retry != nil)
    #expect(log.transitions(of: "flaky", to: "executing").map { $0.int("attempt") } == [1, 2])
    #expect(log.outcome(of: "after") == "succeeded")
    expectStreamContract(log)
  }

  @Test func aJobThatFailsEveryAttemptFailsAfterItsRetries() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        hopeless:
          command: echo "$OPRUN_ATTEMPT" >> attempts; exit 9
          retries: 2
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 1)
    #expect(folder.read("attempts") == "1\n2\n3\n")
    let finish = try #require(folder.events.finish(of: "hopeless"))
    #expect(finish.string("outcome") == "failed")
    #expect(finish.int("exit_code") == 9)
    #expect(finish.int("attempt") == 3)
    expectStreamContract(folder.events)
  }

  @Test func aTimedOutAttemptIsRetried() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        slow-once:
          command: echo "$OPRUN_ATTEMPT" >> attempts; [ "$OPRUN_ATTEMPT" -ge 2 ] || sleep 30
          timeout: 300ms
          retries: 1
      """)
    let run = try runOprun(runArguments(["--grace", "0.2"]), in: folder)
    #expect(run.status == 0)
    #expect(folder.read("attempts") == "1\n2\n")
    #expect(folder.events.finish(of: "slow-once")?.string("outcome") == "succeeded")
    expectStreamContract(folder.events)
  }
}
