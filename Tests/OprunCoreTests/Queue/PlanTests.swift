import Testing

@testable import OprunCore

/// `oprun --dry-run`: the order a serial run would start the jobs, and why.
@Suite struct PlanTests {
  @Test func planFollowsDependenciesThenPriorityThenManifestOrder() {
    let graph = makeGraph("a\nb priority=high\nc <- a priority=veryHigh\nd")
    #expect(graph.plan().map { graph.jobs[$0.job].name } == ["b", "a", "c", "d"])
  }

  @Test func planCoversEveryJobOnce() {
    let graph = makeGraph("a\nb <- a\nc <- a\nd <- b,c\ne")
    #expect(graph.plan().map(\.job).sorted() == Array(graph.jobs.indices))
  }

  @Test func planReasonNamesWhatAJobWaitsFor() {
    let graph = makeGraph("fetch\nbuild <- fetch")
    let steps = graph.plan()
    #expect(steps[0].reason == "no dependencies; priority normal; manifest order #1")
    #expect(steps[1].reason == "waits for fetch; priority normal; manifest order #2")
    #expect(steps[1].waitsFor == [0])
  }

  @Test func planReasonSaysWhereTheBandComesFrom() {
    let graph = makeGraph("queue serial max=1\na priority=high\nb qos=utility\nc qos=utility queue=serial")
    let reasons = graph.plan().map(\.reason)
    #expect(reasons[0] == "no dependencies; priority high; manifest order #1")
    #expect(reasons.contains("no dependencies; priority low (qos utility); manifest order #2"))
    #expect(reasons.contains("no dependencies; priority normal (serial queue ignores qos utility); manifest order #3"))
  }

  @Test func planReasonMentionsRunIf() {
    let graph = makeGraph("a\nb <- a run-if=always\nc <- a run-if=failure")
    let reasons = graph.plan().map(\.reason)
    #expect(reasons[1] == "waits for a; priority normal; runs whatever its dependencies' outcomes; manifest order #2")
    #expect(reasons[2] == "waits for a; priority normal; runs only if a dependency fails; manifest order #3")
  }

  @Test func planUsesTheBandsTheEngineUses() {
    let graph = makeGraph("a qos=background\nb qos=userInteractive\nc priority=low")
    let engine = QueueEngine(graph: graph, failurePolicy: .stop, clock: { 0 })
    for step in graph.plan() {
      #expect(step.band == engine.effectivePriority(of: step.job))
    }
    #expect(graph.plan().map(\.job) == [1, 2, 0])
  }
}
