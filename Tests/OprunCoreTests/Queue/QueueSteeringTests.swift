import Testing

@testable import OprunCore

/// SPEC §8: a run's queues are live objects — suspension, limits, priorities.
@Suite struct QueueSteeringTests {
  @Test func suspendedQueueStartsNothing() {
    let run = QueueHarness("a")
    run.start()
    run.engine.setSuspended(0, true)
    #expect(run.launch().isEmpty)
    #expect(run.log.lines.last == "queue main suspended")
  }

  @Test func suspensionKeepsRunningJobsRunning() {
    let run = QueueHarness("queue main max=1\na\nb")
    run.start()
    run.launch()
    run.engine.setSuspended(0, true)
    #expect(run.state("a") == .executing)
    run.finish("a")
    #expect(run.outcome("a") == .succeeded)
    #expect(run.launch().isEmpty)
  }

  @Test func resumingAQueueStartsItsReadyJobs() {
    let run = QueueHarness("a")
    run.start()
    run.engine.setSuspended(0, true)
    run.launch()
    run.engine.setSuspended(0, false)
    #expect(run.log.lines.last == "queue main resumed")
    #expect(run.launch() == ["a"])
  }

  @Test func suspendingASuspendedQueueSaysNothing() {
    let run = QueueHarness("a")
    run.engine.setSuspended(0, true)
    run.engine.setSuspended(0, true)
    run.engine.setSuspended(0, false)
    run.engine.setSuspended(0, false)
    #expect(run.log.lines == ["queue main suspended", "queue main resumed"])
  }

  @Test func suspendingOneQueueLeavesTheOthersRunning() {
    let run = QueueHarness("queue net\na\nb queue=net")
    run.start()
    run.engine.setSuspended(run.queue("net"), true)
    #expect(run.launch() == ["a"])
  }

  @Test func raisingTheLimitStartsJobsNow() {
    let run = QueueHarness("queue main max=1\na\nb\nc")
    run.start()
    #expect(run.launch() == ["a"])
    run.engine.setMaxConcurrent(0, 3)
    #expect(run.log.lines.last == "queue main limit 3")
    #expect(run.launch() == ["b", "c"])
  }

  @Test func loweringTheLimitStopsNothingThatRuns() {
    let run = QueueHarness("queue main max=3\na\nb\nc\nd")
    run.start()
    #expect(run.launch() == ["a", "b", "c"])
    run.engine.setMaxConcurrent(0, 1)
    #expect(run.engine.runningCount(queue: 0) == 3)
    run.finish("a")
    run.finish("b")
    #expect(run.launch().isEmpty)
    run.finish("c")
    #expect(run.launch() == ["d"])
  }

  @Test func qosBandsStayFixedWhenTheLimitCrossesOne() {
    let run = QueueHarness("queue main max=2\nplain\nplain2\nlow qos=background\nhigh qos=userInitiated")
    run.start()
    run.engine.setMaxConcurrent(0, 1)
    #expect(run.engine.effectivePriority(of: run.id("low")) == .veryLow)
    #expect(run.runToEnd() == ["high", "plain", "plain2", "low"])
  }

  @Test func priorityChangeMovesAWaitingJobToTheEndOfItsNewBand() {
    let run = QueueHarness("queue main max=1\nfirst\na priority=high\nb priority=high\nc")
    run.start()
    #expect(run.launch() == ["a"])
    #expect(run.engine.setPriority(run.id("c"), .high) == .changed)
    #expect(run.engine.setPriority(run.id("first"), .high) == .changed)
    #expect(run.log.lines.suffix(2) == ["c priority high", "first priority high"])
    run.finish("a")
    #expect(run.runToEnd() == ["b", "c", "first"])
  }

  @Test func priorityChangeToTheSameBandStillGoesToItsEnd() {
    let run = QueueHarness("queue main max=1\nhold\na\nb")
    run.start()
    run.launch()
    #expect(run.engine.setPriority(run.id("a"), .normal) == .changed)
    run.finish("hold")
    #expect(run.runToEnd() == ["b", "a"])
  }

  @Test func priorityOfAPendingJobAppliesWhenItBecomesReady() {
    let run = QueueHarness("queue main max=1\na\nb <- a\nc\nd")
    run.start()
    #expect(run.launch() == ["a"])
    #expect(run.engine.setPriority(run.id("b"), .veryHigh) == .changed)
    run.finish("a")
    #expect(run.runToEnd() == ["b", "c", "d"])
  }

  @Test func priorityOfAStartedOrFinishedJobChangesNothing() {
    let run = QueueHarness("a\nb")
    run.start()
    run.launch()
    run.finish("b")
    run.log.clear()
    #expect(run.engine.setPriority(run.id("a"), .high) == .started)
    #expect(run.engine.setPriority(run.id("b"), .high) == .finished)
    #expect(run.log.lines.isEmpty)
    #expect(run.engine.effectivePriority(of: run.id("a")) == .normal)
  }

  @Test func priorityOfALaunchedJobCountsAsStarted() {
    let run = QueueHarness("a")
    run.start()
    _ = run.engine.nextLaunches()
    #expect(run.engine.setPriority(run.id("a"), .high) == .started)
  }
}
