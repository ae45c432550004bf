import OprunCore
import Testing

@testable import OprunRuntime

/// The part that says which jobs a cluster is handed before the run begins and which wait for
/// the last attempt of a job that may be retried.
@Suite struct ClusterSubmissionsTests {
  private let run = ClusterHarness(
    """
    jobs:
      flaky: {command: build, retries: 1}
      after: {command: test, dependencies: [flaky]}
      leaf: {command: ship, dependencies: [after, plain]}
      plain: {command: lint}
      after-plain: {command: doc, dependencies: [plain]}
    """)

  @Test func whatFollowsAJobThatMayBeRetriedWaitsAndTheRestGoesUpFront() {
    var submissions = ClusterSubmissions(run.graph)
    let upFront = submissions.upFront(run.driver.plannedJobs())
    #expect(upFront.map(\.job.name) == ["flaky", "plain", "after-plain"])
    #expect(submissions.isWaiting(run.id("after")) && submissions.isWaiting(run.id("leaf")))
  }

  @Test func theLastAttemptIsKnownOnceSubmittedWithNoRetryLeftOrOnceTheJobFinished() {
    var submissions = ClusterSubmissions(run.graph)
    for planned in submissions.upFront(run.driver.plannedJobs()) {
      submissions.submitted(planned.job.id, attempt: 1)
    }
    let (flaky, after, leaf) = (run.id("flaky"), run.id("after"), run.id("leaf"))
    #expect(!submissions.mayBeSubmitted(after) { _ in false })
    #expect(submissions.mayBeSubmitted(after) { $0 == flaky }, "finished")
    submissions.submitted(flaky, attempt: 2)
    #expect(submissions.mayBeSubmitted(after) { _ in false }, "no retry left")
    #expect(!submissions.mayBeSubmitted(leaf) { _ in false }, "after is not submitted yet")
    submissions.submitted(after, attempt: 1)
    #expect(!submissions.isWaiting(after))
    #expect(submissions.mayBeSubmitted(leaf) { _ in false })
  }
}
