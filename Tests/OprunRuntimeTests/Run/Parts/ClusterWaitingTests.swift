import OprunCore
import Testing

@testable import OprunRuntime

/// The part for a backend that takes the whole run: it exists only for such a backend, keeps
/// what the cluster saw of a job before the engine launched it, and hands it back at the launch.
@Suite struct ClusterWaitingTests {
  private let clock = ManualClock()

  private func work(_ job: JobID) -> WorkKey { WorkKey(job: job, purpose: .attempt(1)) }

  @Test func onlyABackendThatTakesTheWholeRunHasThePart() {
    #expect(ClusterWaiting(backend: FakeBackend(clock: clock), jobs: 2) == nil)
    #expect(ClusterWaiting(backend: FakeCluster(clock: clock), jobs: 2) != nil)
  }

  @Test func reportsBeforeTheLaunchAreKeptInOrderAndHandedBackAtIt() throws {
    var waiting = try #require(ClusterWaiting(backend: FakeCluster(clock: clock), jobs: 2))
    let began = BackendReport.began(work(1), [CommandHandle(id: 9, serial: 9)])
    let output = BackendReport.output(work(1), .stdout, Array("hi\n".utf8))
    let keptBegan = waiting.keep(began) { _ in true }
    let keptOutput = waiting.keep(output) { _ in true }
    let keptForFinished = waiting.keep(output) { _ in false }
    #expect(keptBegan && keptOutput)
    #expect(!keptForFinished, "a report about a job running or finished is not kept")
    let early = waiting.launched(Launch(job: 1, attempt: 1))
    #expect(early.count == 2)
    if case .began = early[0], case .output = early[1] {} else { Issue.record("out of order: \(early)") }
    #expect(waiting.awaitedAttempt(of: 1) == 1)
    let keptWhileAwaited = waiting.keep(output) { _ in true }
    #expect(!keptWhileAwaited, "an awaited job's reports are taken at once")
    let again = waiting.launched(Launch(job: 1, attempt: 1))
    #expect(again.isEmpty, "what was handed back is kept no more")
  }

  @Test func onlyTheAwaitedAttemptIsSettled() throws {
    var waiting = try #require(ClusterWaiting(backend: FakeCluster(clock: clock), jobs: 1))
    _ = waiting.launched(Launch(job: 0, attempt: 1))
    let otherAttempt = waiting.settle(0, attempt: 2)
    let awaitedAttempt = waiting.settle(0, attempt: 1)
    let twice = waiting.settle(0, attempt: 1)
    #expect(!otherAttempt && awaitedAttempt && !twice)
    #expect(waiting.awaitedAttempt(of: 0) == nil)
  }
}
