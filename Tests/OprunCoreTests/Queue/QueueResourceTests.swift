import Testing

@testable import OprunCore

/// The budget (SPEC §12): jobs start when their needs fit in what running jobs leave free,
/// the job refused first holds a reservation, and backfill by past durations.
@Suite struct QueueResourceTests {
  private let fourCPUs = ResourceBudget(cpus: 4, memory: 1 << 40)

  @Test func aJobStartsOnlyWhenItsNeedsFitInWhatRunningJobsLeaveFree() {
    let run = QueueHarness("a cpus=2\nb cpus=2\nc cpus=1", budget: fourCPUs)
    run.start()
    #expect(run.launch() == ["a", "b"])
    #expect(run.state("c") == .ready)
    run.finish("a")
    #expect(run.launch() == ["c"])
    #expect(run.engine.resourcesInUse.cpus == 3)
  }

  @Test func jobsThatDeclareNothingAreNotCounted() {
    let run = QueueHarness("a cpus=4\nb\nc\nd cpus=1", budget: fourCPUs)
    run.start()
    #expect(run.launch() == ["a", "b", "c"])
    #expect(run.engine.resourcesInUse.cpus == 4)
  }

  @Test func memoryIsCountedOnItsOwn() {
    let budget = ResourceBudget(cpus: 8, memory: 3 << 30)
    let run = QueueHarness("a memory=2G\nb memory=2G\nc cpus=2", budget: budget)
    run.start()
    #expect(run.launch() == ["a", "c"])
    run.finish("a")
    #expect(run.launch() == ["b"])
  }

  @Test func theJobRefusedFirstIsNotPassedBySmallerJobsListedAfterIt() {
    let run = QueueHarness("queue main max=8\na cpus=2\nbig cpus=4\nsmall cpus=1\nsmaller cpus=1", budget: fourCPUs)
    run.start()
    #expect(run.launch() == ["a"])
    #expect(run.engine.reservedJob == run.id("big"))
    run.finish("a")
    #expect(run.launch() == ["big"])
    run.finish("big")
    #expect(run.launch() == ["small", "smaller"])
  }

  @Test func othersStartInWhatIsLeftOnceTheReservedNeedsAreSetAsideEachResourceOnItsOwn() {
    let run = QueueHarness(
      "queue main max=8\na cpus=5 memory=3G\nbig cpus=4 memory=2G\nsmall cpus=1\nother cpus=2",
      budget: ResourceBudget(cpus: 10, memory: 4 << 30))
    run.start()
    // Free: 5 CPUs and 1 GiB. Once `big`'s 4 CPUs are set aside, 1 is left: `small` fits, `other` does not.
    #expect(run.launch() == ["a", "small"])
    #expect(run.state("big") == .ready)
    run.finish("a")
    #expect(run.launch() == ["big", "other"])
  }

  @Test func aJobExpectedToEndBeforeTheReservedJobCanStartIsBackfilled() {
    let run = QueueHarness(
      "queue main max=8\na cpus=2\nbig cpus=4\nlong cpus=1\nshort cpus=1", budget: fourCPUs,
      pastDurations: ["a": 10, "short": 5, "long": 20])
    run.start()
    // `big` can start when `a` ends, at 10 s: `short` (5 s) ends before, `long` (20 s) would not.
    #expect(run.launch() == ["a", "short"])
    run.now = 10
    run.finish("short")
    #expect(run.launch() == [])
    run.finish("a")
    #expect(run.launch() == ["big"])
  }

  @Test func withoutPastDurationsNothingIsBackfilled() {
    let run = QueueHarness("queue main max=8\na cpus=2\nbig cpus=4\nshort cpus=1", budget: fourCPUs)
    run.start()
    #expect(run.launch() == ["a"])
  }

  @Test func theBudgetIsSharedByEveryQueueAndTheEarlierQueueHoldsTheReservation() {
    let run = QueueHarness(
      "queue net max=2\nqueue disk max=2\nfirst cpus=3\nwide cpus=2 queue=disk\nwider cpus=2 queue=net\nthin cpus=1",
      budget: fourCPUs)
    run.start()
    #expect(run.launch() == ["first", "thin"])
    // Both refused at the same moment: `net`, listed first in the manifest, holds the reservation.
    #expect(run.engine.reservedJob == run.id("wider"))
    run.finish("first")
    #expect(run.launch() == ["wider"])
    run.finish("thin")
    #expect(run.launch() == ["wide"])
  }

  @Test func cancellingTheReservedJobPassesTheReservationOn() {
    let run = QueueHarness("queue main max=8\na cpus=3\nbig cpus=4\nmid cpus=2", budget: fourCPUs)
    run.start()
    #expect(run.launch() == ["a"])
    #expect(run.engine.reservedJob == run.id("big"))
    run.engine.cancel(run.id("big"), reason: .control)
    #expect(run.launch() == [])
    #expect(run.outcome("big") == .cancelled)
    #expect(run.engine.reservedJob == run.id("mid"))
    run.finish("a")
    #expect(run.launch() == ["mid"])
  }

  @Test func raisingTheBudgetLiveStartsWaitingJobsNow() {
    let run = QueueHarness("a cpus=2\nb cpus=2", budget: ResourceBudget(cpus: 2, memory: 1 << 40))
    run.start()
    #expect(run.launch() == ["a"])
    run.engine.setBudget(fourCPUs)
    #expect(run.launch() == ["b"])
    #expect(run.log.events.contains { $0.kind == .budget(cpus: 4, memory: 1 << 40) })
  }

  @Test func aBudgetSomeUnfinishedJobCouldNeverFitInIsNamed() {
    let run = QueueHarness("a cpus=1\nb cpus=3", budget: fourCPUs)
    run.start()
    #expect(run.launch() == ["a", "b"])
    #expect(run.engine.jobsBeyond(ResourceBudget(cpus: 2, memory: 1 << 40)) == [run.id("b")])
    run.finish("b")
    #expect(run.engine.jobsBeyond(ResourceBudget(cpus: 2, memory: 1 << 40)) == [])
  }

  @Test func loweringTheBudgetStopsNothingThatRunsAndStartsNothingUntilItFits() {
    let run = QueueHarness("a cpus=2\nb cpus=2\nc cpus=1", budget: fourCPUs)
    run.start()
    #expect(run.launch() == ["a", "b"])
    run.engine.setBudget(ResourceBudget(cpus: 2, memory: 1 << 40))
    run.finish("a")
    #expect(run.launch() == [])
    run.finish("b")
    #expect(run.launch() == ["c"])
  }

  @Test func aRetryAfterRunningOutOfMemoryHasTwiceTheMemoryNeverPastTheBudget() {
    let budget = ResourceBudget(cpus: 4, memory: 300 << 20)
    let run = QueueHarness("a memory=100M retries=2", budget: budget)
    run.start()
    #expect(run.engine.nextLaunches().map(\.needs) == [ResourceNeeds(memory: 100 << 20)])
    run.engine.didStart(run.id("a"))
    run.finish("a", succeeded: false, outOfMemory: true)
    let first = run.engine.nextLaunches()
    #expect(first.map(\.needs) == [ResourceNeeds(memory: 200 << 20)])
    run.engine.didStart(run.id("a"))
    run.finish("a", succeeded: false, outOfMemory: true)
    #expect(run.engine.nextLaunches().map(\.needs) == [ResourceNeeds(memory: 300 << 20)])
    let retries = run.log.transitions.filter { $0.from == .executing && $0.to == .ready }
    #expect(retries.map(\.retryMemory) == [200 << 20, 300 << 20])
  }

  @Test func aRetryAfterAnyOtherFailureKeepsItsMemory() {
    let run = QueueHarness("a memory=100M retries=1", budget: ResourceBudget(cpus: 4, memory: 1 << 30))
    run.start()
    run.launch()
    run.fail("a")
    #expect(run.engine.nextLaunches().map(\.needs) == [ResourceNeeds(memory: 100 << 20)])
    #expect(run.log.transitions.last?.retryMemory == nil)
  }

  @Test func withoutABudgetNeedsAreNotScheduled() {
    let run = QueueHarness("a cpus=4\nb cpus=4")
    run.start()
    #expect(run.launch() == ["a", "b"])
    #expect(run.engine.resourceBudget == nil)
  }
}
