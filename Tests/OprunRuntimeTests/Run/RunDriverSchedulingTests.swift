import OprunCore
import Testing

@testable import OprunRuntime

/// The driver on a backend that is handed the whole run and schedules it itself (a cluster):
/// the same events as a local run, following what the backend observed.
@Suite struct RunDriverSchedulingTests {
  @Test func theWholeRunIsSubmittedUpFrontEachJobAfterItsDependencies() {
    let run = ClusterHarness(
      """
      jobs:
        test: {command: make test, dependencies: [build], run-if: always, priority: high}
        build: {command: make}
        lint: {command: lint}
      """)
    run.start()
    #expect(run.cluster.submitted.map(\.job.name) == ["build", "test", "lint"])
    let test = run.cluster.submitted[1]
    #expect(test.dependencies == [run.id("build")])
    #expect(test.band == .high)
    #expect(test.order.value(of: "OPRUN_JOB") == "test")
    #expect(test.order.commands == ["make test"])
  }

  @Test func aJobExecutesWhenTheClusterIsSeenRunningItAndFinishesWhenItEnds() {
    let run = ClusterHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
      """)
    run.start()
    #expect(run.events.lines == ["run-started", "a pending>ready"])
    run.began("a")
    run.ended("a", .exited(0), output: "compiled")
    run.began("b")
    run.ended("b", .exited(3))
    #expect(run.driver.isFinished)
    #expect(run.driver.finish() == 1)
    #expect(
      run.events.lines == [
        "run-started", "a pending>ready", "a ready>executing", "a output compiled", "a executing>finished succeeded",
        "b pending>ready", "b ready>executing", "b executing>finished failed", "run-finished 1",
      ])
    let executing = run.events.transitions(of: "a").first { $0.to == .executing }
    #expect(executing?.pids == [Int32(100 + run.id("a"))])
    #expect(run.events.transitions(of: "b").last?.termination == .exited(3))
  }

  @Test func whatTheClusterReportsBeforeTheEngineMadeAJobReadyWaitsForIt() {
    let run = ClusterHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a], run-if: always}
      """)
    run.start()
    run.began("a")
    // One poll saw b begin and end before it saw a end.
    run.began("b")
    run.ended("b", .exited(0))
    #expect(run.events.lines(of: "b").isEmpty)
    run.ended("a", .exited(1))
    #expect(
      run.events.lines(of: "b") == [
        "b pending>ready", "b ready>executing", "b executing>finished succeeded",
      ])
    #expect(run.driver.isFinished)
  }

  @Test func aDependentOfAFailedJobIsSkippedAndWithdrawnFromTheCluster() {
    let run = ClusterHarness(
      """
      on-failure: continue
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
        c: {command: report, dependencies: [a], run-if: failure}
      """)
    run.start()
    run.began("a")
    run.ended("a", .exited(2))
    #expect(run.events.lines(of: "b").last == "b ready>finished skipped")
    #expect(run.cluster.withdrawn == ["b"])
    // The cluster's own verdict on b, seen later, changes nothing.
    run.cluster.observe(.endedUnstarted(run.work("b"), reason: "DependencyNeverSatisfied"))
    run.began("c")
    run.ended("c", .exited(0))
    #expect(run.driver.isFinished)
    #expect(run.events.transitions(of: "b").filter { $0.to == .finished }.count == 1)
    #expect(run.events.lines(of: "c").last == "c executing>finished succeeded")
  }

  @Test func aJobTheClusterEndedBeforeItRanFailsWithTheClustersReason() {
    let run = ClusterHarness("jobs: {a: {command: build}}")
    run.start()
    run.cluster.observe(.endedUnstarted(run.work("a"), reason: "cancelled on the cluster before it started"))
    #expect(
      run.events.lines == [
        "run-started", "a pending>ready", "a output oprun: cancelled on the cluster before it started",
        "a ready>finished failed",
      ])
    #expect(run.driver.finish() == 1)
  }

  @Test func interruptWithdrawsWaitingJobsAndSignalsRunningOnes() {
    let run = ClusterHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
        c: {command: lint}
      """)
    run.start()
    run.began("a")
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: 2))
    #expect(run.cluster.signals == ["\(100 + run.id("a")) interrupt"])
    #expect(Set(run.cluster.withdrawn) == ["b", "c"])
    // c was awaited: it finishes when the cluster confirms it never ran; b never reached the cluster's queue head.
    #expect(run.events.lines(of: "b") == ["b cancelled interrupt", "b pending>ready", "b ready>finished cancelled"])
    run.cluster.observe(.endedUnstarted(run.work("c"), reason: "cancelled"))
    run.ended("a", .signalled(15))
    #expect(run.events.lines(of: "a").last == "a executing>finished cancelled")
    #expect(run.events.lines(of: "c").last == "c ready>finished cancelled")
    #expect(!run.events.lines(of: "c").contains { $0.contains("output") })
    #expect(run.driver.isFinished)
    #expect(run.driver.finish() == 130)
  }

  @Test func anAwaitedJobCancelledJustAsItBeganIsSignalledOnceSeenRunning() {
    let run = ClusterHarness("jobs: {a: {command: build}}")
    run.start()
    run.driver.apply(.cancelRun(reason: .terminate, endingSignal: 15))
    #expect(run.cluster.withdrawn == ["a"])
    run.began("a")
    #expect(run.cluster.signals == ["\(100 + run.id("a")) terminate"])
    run.ended("a", .signalled(15))
    #expect(run.events.lines(of: "a").last == "a executing>finished cancelled")
  }

  @Test func aTimeoutIsTimedFromWhenTheClusterBeganTheJob() {
    let run = ClusterHarness("jobs: {a: {command: build, timeout: 2s}}")
    run.start()
    run.clock.advance(by: 10)
    #expect(run.cluster.signals.isEmpty)
    run.began("a")
    run.clock.advance(by: 2)
    #expect(run.cluster.signals == ["\(100 + run.id("a")) terminate"])
    run.ended("a", .signalled(15))
    #expect(run.events.lines(of: "a").last == "a executing>finished timed-out")
  }

  @Test func completionsRunWhereOprunRunsAfterTheClusterJobEnds() {
    let run = ClusterHarness("jobs: {a: {command: build, completion: notify}}")
    run.start()
    run.began("a")
    #expect(run.cluster.completions.isEmpty)
    run.ended("a", .exited(0))
    #expect(run.cluster.completions.map(\.commands) == [["notify"]])
    #expect(run.cluster.completions.first?.value(of: "OPRUN_JOB_STATUS") == "succeeded")
    run.clock.advance(by: 1)
    #expect(run.driver.isFinished)
    #expect(run.events.lines.last == "a completion exited 0")
  }

  @Test func controlCancelOfAWaitingJobWithdrawsItAndItsDependentsFollowTheirRunIf() {
    let run = ClusterHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
        c: {command: clean, dependencies: [a], run-if: always}
      """)
    run.start()
    var answers: [Bool] = []
    let request = ControlRequest(command: "cancel", args: ["a"], peerUID: 0, peerPID: 1)
    run.driver.apply(.control(request, reply: ControlReply { answers.append($0.ok) }))
    #expect(answers == [true])
    #expect(run.cluster.withdrawn == ["a"])
    run.cluster.observe(.endedUnstarted(run.work("a"), reason: "cancelled"))
    #expect(run.events.lines(of: "a").last == "a ready>finished cancelled")
    #expect(run.events.lines(of: "b").last == "b ready>finished skipped")
    #expect(run.events.lines(of: "c") == ["c pending>ready"])
  }

  @Test func suspendingAQueueHoldsItsJobsThatHaveNotBegunAndResumingReleasesThem() {
    let run = ClusterHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
        c: {command: lint}
      """)
    run.start()
    run.began("a")
    run.driver.apply(.toggleSuspension)
    #expect(run.cluster.holds == ["hold b c"])
    run.ended("a", .exited(0))
    run.driver.apply(.toggleSuspension)
    #expect(run.cluster.holds == ["hold b c", "release b c"])
    run.began("b")
    run.began("c")
    #expect(run.events.lines(of: "b").last == "b ready>executing")
  }
}
