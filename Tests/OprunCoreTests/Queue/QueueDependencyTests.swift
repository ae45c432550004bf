import Testing

@testable import OprunCore

/// SPEC §3.1: dependencies, whatever their outcome, and `run-if`.
@Suite struct QueueDependencyTests {
  @Test func dependenciesDoNotDistinguishOutcomes() {
    let run = QueueHarness("a\nb\nc <- a,b run-if=always", failurePolicy: .continue)
    run.start()
    run.launch()
    run.fail("a")
    run.engine.cancel(run.id("b"), reason: .control)
    run.finish("b")
    #expect(run.state("c") == .ready)
    #expect(!run.engine.isCancelled(run.id("c")))
  }

  @Test func aJobBecomesReadyAfterTheLastOfItsDependenciesToFinish() {
    let run = QueueHarness("a\nb\nc <- a,b\nd\ne <- d")
    run.start()
    run.launch()
    run.finish("b")
    run.finish("a")
    run.engine.cancel(run.id("e"), reason: .control)
    let readyAfter = Dictionary(
      run.log.transitions.filter { $0.from == .pending && $0.to == .ready }.map {
        (run.graph.jobs[$0.job].name, $0.readyAfter.map { run.graph.jobs[$0].name } ?? "-")
      }, uniquingKeysWith: { first, _ in first })
    // c waited for a, the later of its two; a job with none, or made ready by its
    // cancellation, waited for nothing.
    #expect(readyAfter == ["a": "-", "b": "-", "c": "a", "d": "-", "e": "-"])
  }

  @Test func runIfSuccessSkipsJobWhenADependencyFailed() {
    let run = QueueHarness("a\nb <- a", failurePolicy: .continue)
    run.start()
    run.runToEnd(failing: ["a"])
    #expect(run.log.lines(of: "b") == ["b pending>ready", "b cancelled dependency-failed", "b ready>finished skipped"])
  }

  @Test func runIfSuccessRunsWhenEveryDependencySucceeded() {
    let run = QueueHarness("a\nb\nc <- a,b")
    run.start()
    #expect(run.runToEnd() == ["a", "b", "c"])
    #expect(run.outcome("c") == .succeeded)
  }

  @Test func skippedJobCountsAsNotSucceededForItsDependents() {
    let run = QueueHarness("a\nb <- a\nc <- b run-if=failure\nd <- b", failurePolicy: .continue)
    run.start()
    #expect(run.runToEnd(failing: ["a"]) == ["a", "c"])
    #expect(run.outcome("b") == .skipped)
    #expect(run.outcome("c") == .succeeded)
    #expect(run.outcome("d") == .skipped)
  }

  @Test func runIfAlwaysRunsWhateverTheDependenciesOutcomes() {
    let run = QueueHarness("a\nb <- a run-if=always", failurePolicy: .continue)
    run.start()
    #expect(run.runToEnd(failing: ["a"]) == ["a", "b"])
    #expect(run.outcome("b") == .succeeded)
  }

  @Test func runIfFailureRunsWhenADependencyFailed() {
    let run = QueueHarness("a\nb\nc <- a,b run-if=failure", failurePolicy: .continue)
    run.start()
    #expect(run.runToEnd(failing: ["b"]) == ["a", "b", "c"])
  }

  @Test func runIfFailureRunsWhenADependencyWasCancelled() {
    let run = QueueHarness("a\nb <- a run-if=failure")
    run.start()
    run.engine.cancel(run.id("a"), reason: .control)
    #expect(run.runToEnd() == ["b"])
    #expect(run.outcome("a") == .cancelled)
  }

  @Test func runIfFailureRunsWhenADependencyTimedOut() {
    let run = QueueHarness("a\nb <- a run-if=failure", failurePolicy: .continue)
    run.start()
    run.launch()
    run.engine.timedOut(run.id("a"))
    run.fail("a")
    #expect(run.launch() == ["b"])
  }

  @Test func runIfFailureIsSkippedWhenEveryDependencySucceeded() {
    let run = QueueHarness("a\nb <- a run-if=failure")
    run.start()
    #expect(run.runToEnd() == ["a"])
    #expect(run.outcome("b") == .skipped)
    #expect(run.engine.exitStatus() == 0)
  }

  @Test func runIfFailureWithoutDependenciesIsSkipped() {
    let run = QueueHarness("a run-if=failure")
    run.start()
    #expect(run.runToEnd().isEmpty)
    #expect(run.outcome("a") == .skipped)
  }

  @Test func skippedJobTakesASlotWhenItsQueueStartsIt() {
    let run = QueueHarness("queue main max=1\na\nb\nc <- a", failurePolicy: .continue)
    run.start()
    #expect(run.launch() == ["a"])
    run.fail("a")
    // c is skipped, yet waits for a free slot behind b, which is earlier in manifest order.
    #expect(run.launch() == ["b"])
    #expect(run.state("c") == .ready)
    run.finish("b")
    #expect(run.launch().isEmpty)
    #expect(run.outcome("c") == .skipped)
  }

  @Test func dependenciesCrossQueues() {
    let run = QueueHarness("queue net max=1\nfetch queue=net\nbuild <- fetch\nlint")
    run.start()
    #expect(Set(run.launch()) == ["lint", "fetch"])
    run.finish("lint")
    #expect(run.launch().isEmpty)
    run.finish("fetch")
    #expect(run.launch() == ["build"])
  }

  @Test func barrierWaitsForEarlierJobsAndLaterJobsWaitForIt() {
    // As the graph builder turns `barrier: true` into edges, like addBarrierBlock.
    var graph = makeGraph("a\nb\nsync <- a,b\nc <- sync\nd <- sync")
    graph.jobs[2].barrier = true
    let log = EventLog(graph: graph)
    let engine = QueueEngine(graph: graph, failurePolicy: .stop, clock: { 0 })
    engine.addObserver(log)
    engine.start()
    #expect(engine.nextLaunches().map(\.job) == [0, 1])
    engine.didStart(0)
    engine.didStart(1)
    engine.didFinish(0, succeeded: true)
    #expect(engine.nextLaunches().isEmpty)
    engine.didFinish(1, succeeded: true)
    #expect(engine.nextLaunches().map(\.job) == [2])
    engine.didStart(2)
    engine.didFinish(2, succeeded: true)
    #expect(engine.nextLaunches().map(\.job) == [3, 4])
  }
}
