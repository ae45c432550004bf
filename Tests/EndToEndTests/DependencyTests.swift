import Foundation
import Testing

/// Dependencies and `run-if` (SPEC §3.1), with `-k` so that a failure stops nothing.
@Suite struct DependencyTests {
  @Test func aJobStartsOnlyAfterEveryDependencyFinishedEvenAcrossQueues() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      name: main
      max-concurrent: 4
      queues:
        net: {max-concurrent: 2}
      jobs:
        fetch: {command: sleep 0.05 && echo fetched > fetched, queue: net}
        generate: {command: sleep 0.02 && echo generated > generated}
        build:
          command: cat fetched generated > built
          dependencies: [fetch, generate]
        upload:
          command: cat built > uploaded
          dependencies: [build]
          queue: net
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.read("uploaded") == "fetched\ngenerated\n")
    let log = folder.events
    for (job, dependency) in [("build", "fetch"), ("build", "generate"), ("upload", "build")] {
      let ready = try #require(log.index(of: job, to: "ready"))
      let finished = try #require(log.index(of: dependency, to: "finished"))
      #expect(finished < ready, "\(job) went ready before \(dependency) finished")
    }
    #expect(log.finish(of: "upload")?.string("queue") == "net")
    expectStreamContract(log)
  }

  @Test func runIfSuccessSkipsAJobWhoseDependencyFailed() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        broken: {command: exit 3}
        fine: {command: 'true'}
        needs-both:
          command: touch needs-both.ran
          dependencies: [broken, fine]
        after-skipped:
          command: touch after-skipped.ran
          dependencies: [needs-both]
      """)
    let run = try runOprun(runArguments(["-k"]), in: folder)
    #expect(run.status == 1)
    let log = folder.events
    #expect(log.outcome(of: "broken") == "failed")
    #expect(log.finish(of: "broken")?.int("exit_code") == 3)
    #expect(log.outcome(of: "needs-both") == "skipped")
    #expect(log.cancelReason(of: "needs-both") == "dependency-failed")
    // A skipped dependency is not a success either.
    #expect(log.outcome(of: "after-skipped") == "skipped")
    #expect(!log.executed("needs-both") && !log.executed("after-skipped"))
    #expect(!folder.exists("needs-both.ran") && !folder.exists("after-skipped.ran"))
    // Skipped jobs still go pending → ready → finished.
    #expect(log.named("transition", job: "needs-both").map { $0.string("to") } == ["ready", "finished"])
    expectStreamContract(log)
  }

  @Test func runIfAlwaysRunsWhateverTheDependenciesOutcome() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        broken: {command: exit 1}
        cleanup:
          command: touch cleanup.ran
          dependencies: [broken]
          run-if: always
      """)
    let run = try runOprun(runArguments(["-k"]), in: folder)
    #expect(run.status == 1)
    let log = folder.events
    #expect(log.outcome(of: "cleanup") == "succeeded")
    #expect(folder.exists("cleanup.ran"))
    expectStreamContract(log)
  }

  @Test func runIfFailureRunsOnlyWhenADependencyFailed() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        broken: {command: exit 1}
        fine: {command: 'true'}
        on-broken:
          command: touch on-broken.ran
          dependencies: [broken, fine]
          run-if: failure
        on-fine:
          command: touch on-fine.ran
          dependencies: [fine]
          run-if: failure
      """)
    let run = try runOprun(runArguments(["-k"]), in: folder)
    #expect(run.status == 1)
    let log = folder.events
    #expect(log.outcome(of: "on-broken") == "succeeded")
    #expect(folder.exists("on-broken.ran"))
    #expect(log.outcome(of: "on-fine") == "skipped")
    #expect(log.cancelReason(of: "on-fine") == "dependency-failed")
    #expect(!folder.exists("on-fine.ran"))
    expectStreamContract(log)
  }

  @Test func aJobSkippedByItsRunIfLeavesExitStatusZero() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        fine: {command: 'true'}
        on-failure-only:
          command: 'true'
          dependencies: [fine]
          run-if: failure
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0)
    let log = folder.events
    #expect(log.outcome(of: "on-failure-only") == "skipped")
    #expect(log.finishedExitCode == 0)
    expectStreamContract(log)
  }
}
