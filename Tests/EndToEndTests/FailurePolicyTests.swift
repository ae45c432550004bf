import Foundation
import Testing

/// `on-failure` and the exit status (SPEC §3.5).
@Suite struct FailurePolicyTests {
  /// `long` runs until the test creates `go`; `broken` fails once `long` is executing;
  /// `queued` waits behind them for a slot; `later` depends on `long`; `cleanup` always runs.
  static let manifest = """
    max-concurrent: 2
    on-failure: stop
    jobs:
      long:
        command: touch long.started; while [ ! -f go ]; do sleep 0.01; done; touch long.done
      broken:
        command: while [ ! -f long.started ]; do sleep 0.01; done; exit 4
      queued: {command: touch queued.ran}
      later:
        command: touch later.ran
        dependencies: [long]
      cleanup:
        command: touch cleanup.ran
        dependencies: [long]
        run-if: always
    """

  @Test func stopStartsNothingNewCancelsWhatWaitsAndLetsRunningJobsFinish() throws {
    let folder = try Scratch()
    try folder.manifest(Self.manifest)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilFinished("broken")
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 1)
    let log = folder.events
    #expect(log.outcome(of: "broken") == "failed")
    #expect(log.outcome(of: "long") == "succeeded")
    #expect(folder.exists("long.done"))
    for job in ["queued", "later"] {
      #expect(log.outcome(of: job) == "cancelled")
      #expect(log.cancelReason(of: job) == "failure-policy")
      #expect(!log.executed(job))
      #expect(!folder.exists("\(job).ran"))
    }
    #expect(log.outcome(of: "cleanup") == "succeeded")
    #expect(folder.exists("cleanup.ran"))
    #expect(log.finishedExitCode == 1)
    expectStreamContract(log)
  }

  @Test func keepGoingRunsEverythingItsRunIfAllows() throws {
    let folder = try Scratch()
    try folder.manifest(Self.manifest)
    let oprun = try OprunProcess(runArguments(["-k"]), in: folder)
    try folder.waitUntilFinished("broken")
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 1)
    let log = folder.events
    for job in ["queued", "later", "cleanup"] {
      #expect(log.outcome(of: job) == "succeeded")
      #expect(folder.exists("\(job).ran"))
    }
    #expect(log.named("cancelled").isEmpty)
    expectStreamContract(log)
  }

  @Test func failFastCancelsRunningJobsToo() throws {
    let folder = try Scratch()
    try folder.manifest(Self.manifest)
    // Nobody creates `go`: only the cancellation can end `long`.
    let run = try runOprun(runArguments(["--fail-fast", "--grace", "5"]), in: folder)
    #expect(run.status == 1)
    #expect(run.signal == nil)
    let log = folder.events
    #expect(log.outcome(of: "broken") == "failed")
    #expect(log.outcome(of: "long") == "cancelled")
    #expect(log.cancelReason(of: "long") == "failure-policy")
    #expect(log.finish(of: "long")?.int("signal") == Int(SIGTERM))
    #expect(!folder.exists("long.done"))
    // Like Ctrl-C, cancel-all cancels every job, `run-if: always` ones included.
    for job in ["queued", "later", "cleanup"] {
      #expect(log.outcome(of: job) == "cancelled")
      #expect(log.cancelReason(of: job) == "failure-policy")
      #expect(!log.executed(job))
      #expect(!folder.exists("\(job).ran"))
    }
    #expect(log.finishedExitCode == 1)
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }

  @Test func onFailureInTheManifestIsOverriddenByTheFlags() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 1
      on-failure: continue
      jobs:
        broken: {command: exit 1}
        next: {command: touch next.ran}
      """)
    let kept = try runOprun(runArguments(), in: folder)
    #expect(kept.status == 1)
    #expect(folder.events.outcome(of: "next") == "succeeded")
    let stopped = try runOprun(runArguments(["--fail-fast"]), in: folder)
    #expect(stopped.status == 1)
    #expect(folder.events.outcome(of: "next") == "cancelled")
    #expect(folder.events.cancelReason(of: "next") == "failure-policy")
  }

  @Test func exitStatusIsZeroWhenEverythingSucceededOneOnAFailureTwoOnAManifestError() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  fine: {command: 'true'}\n", name: "good.yaml")
    try folder.manifest("jobs:\n  broken: {command: exit 7}\n", name: "bad.yaml")
    try folder.manifest("jobs:\n  fine: {comand: 'true'}\n", name: "invalid.yaml")
    #expect(try runOprun(["good.yaml"], in: folder).status == 0)
    #expect(try runOprun(["bad.yaml"], in: folder).status == 1)
    #expect(try runOprun(["invalid.yaml"], in: folder).status == 2)
    #expect(try runOprun(["missing.yaml"], in: folder).status == 2)
    #expect(try runOprun(["good.yaml", "--output", "sideways"], in: folder).status == 2)
  }
}
