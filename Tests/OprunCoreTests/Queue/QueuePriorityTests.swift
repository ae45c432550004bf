import Testing

@testable import OprunCore

/// SPEC §3.2 and §3.3: the order ready jobs start in, queues and their limits, QoS bands.
@Suite struct QueuePriorityTests {
  @Test func highestPriorityReadyJobStartsFirst() {
    let run = QueueHarness("queue main max=1\na priority=low\nb\nc priority=veryHigh\nd priority=high")
    run.start()
    #expect(run.runToEnd() == ["c", "d", "b", "a"])
  }

  @Test func equalPrioritiesStartInManifestOrder() {
    let run = QueueHarness("queue main max=1\nz\ny\nx\nw priority=high\nv priority=high")
    run.start()
    #expect(run.runToEnd() == ["w", "v", "z", "y", "x"])
  }

  @Test func priorityOnlyOrdersReadyJobsNeverOverridingADependency() {
    let run = QueueHarness("queue main max=1\na\nb <- a priority=veryHigh\nc")
    run.start()
    // b outranks c but is not ready while a runs; once ready, it outranks c.
    #expect(run.launch() == ["a"])
    run.finish("a")
    #expect(run.launch() == ["b"])
    run.finish("b")
    #expect(run.launch() == ["c"])
  }

  @Test func readyJobOfLowerPriorityStartsWhileAHigherOneWaitsForDependencies() {
    let run = QueueHarness("queue main max=2\nslow\nurgent <- slow priority=veryHigh\nlow priority=veryLow")
    run.start()
    #expect(run.launch() == ["slow", "low"])
  }

  @Test func prioritiesOnlyCompareWithinOneQueue() {
    let run = QueueHarness("queue main max=1\nqueue other max=1\na priority=veryLow\nb queue=other priority=veryHigh")
    run.start()
    // a does not wait for b: each queue starts its own best job.
    #expect(Set(run.launch()) == ["a", "b"])
  }

  @Test func eachQueueHasItsOwnLimit() {
    let run = QueueHarness("queue main max=2\nqueue net max=1\na\nb\nc\nd queue=net\ne queue=net")
    run.start()
    #expect(Set(run.launch()) == ["a", "b", "d"])
    #expect(run.engine.runningCount(queue: run.queue("main")) == 2)
    #expect(run.engine.runningCount(queue: run.queue("net")) == 1)
    run.finish("d")
    #expect(run.launch() == ["e"])
    run.finish("a")
    #expect(run.launch() == ["c"])
  }

  @Test func serialQueueRunsOneJobAtATime() {
    let run = QueueHarness("queue main max=1\na\nb\nc")
    run.start()
    #expect(run.launch() == ["a"])
    #expect(run.launch().isEmpty)
    run.finish("a")
    #expect(run.launch() == ["b"])
  }

  @Test func jobWithSeveralCommandsIsOneOperation() {
    let run = QueueHarness("queue main max=2\na commands=3\nb commands=2\nc")
    run.start()
    #expect(run.launch() == ["a", "b"])
    #expect(run.engine.runningCount(queue: 0) == 2)
  }

  @Test func qosGivesTheBandOfAJobWithoutExplicitPriorityOnAConcurrentQueue() {
    let run = QueueHarness(
      "queue main max=1\nqueue pool max=2\nplain queue=pool\nb queue=pool qos=background\nu queue=pool qos=userInteractive\nn queue=pool\nl queue=pool qos=utility\ni queue=pool qos=userInitiated"
    )
    run.start()
    #expect(run.runToEnd() == ["u", "i", "plain", "n", "l", "b"])
  }

  @Test func explicitPriorityWinsOverQoS() {
    let run = QueueHarness("queue main max=2\nhold\na qos=userInteractive priority=low\nb qos=background\nc")
    run.start()
    #expect(run.engine.effectivePriority(of: run.id("a")) == .low)
    #expect(run.runToEnd() == ["hold", "c", "a", "b"])
  }

  @Test func serialQueueIgnoresQoSForOrdering() {
    let run = QueueHarness("queue main max=1\na qos=background\nb qos=userInteractive")
    run.start()
    #expect(run.runToEnd() == ["a", "b"])
  }

  @Test func serialQueueStillHonoursExplicitPriority() {
    let run = QueueHarness("queue main max=1\na qos=background\nb priority=high")
    run.start()
    #expect(run.runToEnd() == ["b", "a"])
  }

  @Test func queueQoSIsInheritedAsABand() {
    let run = QueueHarness("queue bulk max=2 qos=background\na queue=bulk\nb")
    run.start()
    #expect(run.engine.effectivePriority(of: run.id("a")) == .veryLow)
    #expect(run.engine.effectivePriority(of: run.id("b")) == .normal)
  }
}
