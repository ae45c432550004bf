import OprunCore
import Testing

@testable import OprunRuntime

/// Where a run is in its life: the first cancelling command sets how it ends, a second kills
/// everything; requests are in progress only between its start and its announced end.
@Suite struct RunLifecycleTests {
  private let run = RunIdentity(id: "r", manifestPath: "/m/jobs.yaml", started: 0, pid: 1)

  @Test func theFirstCancelSetsTheEndingSignalAndASecondKillsEverything() {
    var lifecycle = RunLifecycle()
    #expect(lifecycle.cancel(endingSignal: 2) == .cancelQueues)
    #expect(lifecycle.endingSignal == 2 && !lifecycle.killedEverything)
    #expect(lifecycle.cancel(endingSignal: 15) == .killEverything)
    #expect(lifecycle.endingSignal == 2 && lifecycle.killedEverything)
  }

  @Test func aRunIsInProgressFromItsBeginningToItsAnnouncedEnd() {
    var lifecycle = RunLifecycle()
    #expect(!lifecycle.isInProgress)
    lifecycle.begin(run)
    #expect(lifecycle.isInProgress && lifecycle.identity?.id == "r")
    lifecycle.announceEnd()
    #expect(!lifecycle.isInProgress && lifecycle.hasAnnouncedEnd)
  }
}
