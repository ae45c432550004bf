import OprunCore
import Testing

@testable import OprunRuntime

/// `retries` on a backend that takes the whole run (a cluster): each retry is another
/// submission, with the transitions of a local retry, and a job that waits for one that may be
/// retried is submitted only once that job's last attempt is known, so that it waits for that one.
@Suite struct RunDriverClusterRetryTests {
  @Test func aFailedAttemptIsSubmittedAgainAndItsDependentWaitsForTheAttemptThatSucceeded() {
    let run = ClusterHarness(
      """
      jobs:
        flaky: {command: build, retries: 2}
        after: {command: test, dependencies: [flaky]}
        other: {command: lint}
      """)
    run.start()
    #expect(run.cluster.submitted.map(\.job.name) == ["flaky", "other"])
    run.began("flaky")
    run.ended("flaky", .exited(1))
    #expect(run.cluster.later == ["flaky#2"])
    let retry = run.cluster.submitted.last
    #expect(retry?.order.value(of: "OPRUN_ATTEMPT") == "2")
    #expect(retry?.dependencies == [])
    run.began("flaky", attempt: 2)
    #expect(run.cluster.later == ["flaky#2"], "attempt 2 is not the last: the dependent still waits")
    run.ended("flaky", .exited(0), attempt: 2)
    #expect(run.cluster.later == ["flaky#2", "after"])
    #expect(run.cluster.submitted.last?.dependencies == [run.id("flaky")])
    run.began("after")
    run.ended("after", .exited(0))
    run.began("other")
    run.ended("other", .exited(0))
    #expect(run.driver.isFinished)
    #expect(run.driver.finish() == 0)
    #expect(
      run.events.lines(of: "flaky") == [
        "flaky pending>ready", "flaky ready>executing", "flaky executing>ready",
        "flaky ready>executing", "flaky executing>finished succeeded",
      ])
    let executing = run.events.transitions(of: "flaky").filter { $0.to == .executing }
    #expect(executing.map(\.attempt) == [1, 2])
    #expect(executing.map(\.pids) == [[Int32(100 + run.id("flaky"))], [Int32(1100 + run.id("flaky"))]])
    #expect(run.events.lines(of: "after").last == "after executing>finished succeeded")
  }

  @Test func theAttemptWithNoRetryLeftLetsTheDependentBeSubmittedAtOnceAndItsFailureSkipsIt() {
    let run = ClusterHarness(
      """
      on-failure: continue
      jobs:
        flaky: {command: build, retries: 1}
        after: {command: test, dependencies: [flaky]}
        cleanup: {command: clean, dependencies: [flaky], run-if: always}
      """)
    run.start()
    run.began("flaky")
    run.ended("flaky", .exited(1))
    // The second attempt is the last: the cluster can hold the dependents behind it.
    #expect(run.cluster.later == ["flaky#2", "after", "cleanup"])
    run.began("flaky", attempt: 2)
    run.ended("flaky", .exited(4), attempt: 2)
    #expect(run.events.lines(of: "flaky").last == "flaky executing>finished failed")
    #expect(run.events.transitions(of: "flaky").last?.termination == .exited(4))
    #expect(run.events.lines(of: "after").last == "after ready>finished skipped")
    #expect(run.cluster.withdrawn == ["after"])
    run.began("cleanup")
    run.ended("cleanup", .exited(0))
    #expect(run.driver.isFinished)
    #expect(run.driver.finish() == 1)
  }

  @Test func aJobWaitingBehindAWaitingJobIsSubmittedWithItOnceTheLastAttemptIsKnown() {
    let run = ClusterHarness(
      """
      jobs:
        flaky: {command: build, retries: 3}
        middle: {command: test, dependencies: [flaky]}
        leaf: {command: ship, dependencies: [middle]}
        free: {command: lint}
        after-free: {command: doc, dependencies: [free]}
      """)
    run.start()
    #expect(run.cluster.submitted.map(\.job.name) == ["flaky", "free", "after-free"])
    run.began("flaky")
    run.ended("flaky", .exited(0))
    #expect(run.cluster.later == ["middle", "leaf"])
    #expect(run.cluster.submitted.last?.dependencies == [run.id("middle")])
  }

  @Test func aRetrySbatchRefusesFailsTheJobWithTheReasonAndIsNotTriedAgain() {
    let run = ClusterHarness(
      """
      on-failure: continue
      jobs:
        flaky: {command: build, retries: 2}
        after: {command: test, dependencies: [flaky]}
      """)
    run.cluster.laterRefusal = (name: "flaky", message: "sbatch refused job 'flaky' (attempt 2): no such partition")
    run.start()
    run.began("flaky")
    run.ended("flaky", .exited(1))
    #expect(
      run.events.lines(of: "flaky").suffix(3) == [
        "flaky executing>ready", "flaky output oprun: sbatch refused job 'flaky' (attempt 2): no such partition",
        "flaky ready>finished failed",
      ])
    #expect(run.events.lines(of: "after").last == "after ready>finished skipped")
    #expect(run.cluster.later.isEmpty)
    #expect(run.driver.isFinished)
    #expect(run.driver.finish() == 1)
  }

  @Test func aDependentSubmittedWhileItsQueueIsSuspendedIsSubmittedHeld() {
    let run = ClusterHarness(
      """
      jobs:
        flaky: {command: build, retries: 1}
        after: {command: test, dependencies: [flaky]}
      """)
    run.start()
    run.began("flaky")
    run.driver.apply(.toggleSuspension)
    run.ended("flaky", .exited(0))
    #expect(run.cluster.later == ["after held"])
    run.driver.apply(.toggleSuspension)
    #expect(run.cluster.holds.last == "release after")
  }

  @Test func interruptingARunWithAWaitingJobSubmitsNothingMoreAndCancelsTheRetry() {
    let run = ClusterHarness(
      """
      jobs:
        flaky: {command: build, retries: 2}
        after: {command: test, dependencies: [flaky]}
      """)
    run.start()
    run.began("flaky")
    run.ended("flaky", .exited(1))
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: 2))
    #expect(run.cluster.withdrawn == ["flaky"])
    run.cluster.observe(.endedUnstarted(run.work("flaky", attempt: 2), reason: "cancelled"))
    #expect(run.events.lines(of: "flaky").last == "flaky ready>finished cancelled")
    #expect(run.events.lines(of: "after").last == "after ready>finished cancelled")
    #expect(run.cluster.later == ["flaky#2"])
    #expect(run.driver.isFinished)
    #expect(run.driver.finish() == 130)
  }

  @Test func theInstancesWaitingBehindARetriedJobAreHandedOverTogetherWithTheirIndices() {
    let run = ClusterHarness(
      """
      jobs:
        flaky: {command: build, retries: 1}
        t:
          matrix: {n: ["1", "2", "3"]}
          command: test
          dependencies: [flaky]
        after: {command: ship, dependencies: [t]}
      """)
    run.start()
    run.began("flaky")
    run.ended("flaky", .exited(0))
    #expect(run.cluster.together == [["t[1]", "t[2]", "t[3]"]])
    #expect(run.cluster.later == ["t[1]", "t[2]", "t[3]", "after"])
    #expect(run.cluster.submitted.suffix(4).map(\.instanceIndex) == [0, 1, 2, nil])
  }
}
