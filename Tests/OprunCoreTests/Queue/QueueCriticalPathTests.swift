import PropertyBased
import Testing

@testable import OprunCore

/// `--schedule critical-path` (SPEC §5): among ready jobs of one band, the job heading the
/// longest remaining path starts first, weighed by past durations (1 s where unknown); the
/// band still comes first, dependencies still hold, and manifest order breaks ties.
@Suite struct QueueCriticalPathTests {
  /// `short` comes first in the manifest; `head` heads a chain of three.
  static let shortThenChain = "queue main max=1\nshort\nhead\nmiddle <- head\ntail <- middle"

  @Test func withEqualPrioritiesTheJobHeadingTheLongerChainStartsFirst() {
    let run = QueueHarness(Self.shortThenChain, durations: [:])
    run.start()
    // Paths: head 3, middle 2, short 1, tail 1; short and tail tie, and short comes first.
    #expect(run.runToEnd() == ["head", "middle", "short", "tail"])
  }

  @Test func fifoStaysTheDefaultWhateverThePathLengths() {
    let run = QueueHarness(Self.shortThenChain)
    run.start()
    #expect(run.runToEnd() == ["short", "head", "middle", "tail"])
  }

  @Test func knownDurationsOutweighTheNumberOfJobsOnAPath() {
    let run = QueueHarness(
      "queue main max=1\nquick-1\nquick-2 <- quick-1\nquick-3 <- quick-2\nslow",
      durations: ["quick-1": 0.2, "quick-2": 0.2, "quick-3": 0.2, "slow": 5])
    run.start()
    #expect(run.runToEnd() == ["slow", "quick-1", "quick-2", "quick-3"])
  }

  @Test func aJobOfUnknownDurationWeighsOneSecond() {
    let run = QueueHarness(
      "queue main max=1\nknown-short\nunknown\nknown-long", durations: ["known-short": 0.999, "known-long": 1.001])
    run.start()
    #expect(run.runToEnd() == ["known-long", "unknown", "known-short"])
  }

  @Test func thePriorityBandStillBeatsALongerPath() {
    let run = QueueHarness(
      "queue main max=1\nhead\nmiddle <- head\ntail <- head\nurgent priority=high\nlate priority=low",
      durations: ["head": 60, "urgent": 0.1, "late": 600])
    run.start()
    #expect(run.runToEnd() == ["urgent", "head", "middle", "tail", "late"])
  }

  @Test func aDependencyStillWinsOverTheLongestPath() {
    let run = QueueHarness("queue main max=2\nsetup\nlong <- setup\nother\nmore", durations: ["long": 100, "other": 5])
    run.start()
    // long ranks above other but waits for setup: the second slot goes to other.
    #expect(run.launch() == ["setup", "other"])
    run.finish("setup")
    #expect(run.launch() == ["long"])
  }

  @Test func equalPathsStartInManifestOrder() {
    let run = QueueHarness("queue main max=1\nz\ny\nx", durations: ["z": 2, "y": 2, "x": 2])
    run.start()
    #expect(run.runToEnd() == ["z", "y", "x"])
  }

  /// 0.1 + (0.2 + 0.3) and 0.3 + (0.2 + 0.1) are not the same `Double`: paths are summed in
  /// whole microseconds, so that they tie and manifest order decides.
  @Test func pathsOfEqualLengthTieWhateverTheOrderOfTheirWeights() {
    let run = QueueHarness(
      "queue main max=1\na1\na2 <- a1\na3 <- a2\nb1\nb2 <- b1\nb3 <- b2",
      durations: ["a1": 0.1, "a2": 0.2, "a3": 0.3, "b1": 0.3, "b2": 0.2, "b3": 0.1])
    run.start()
    #expect(run.launch() == ["a1"])
  }

  @Test func eachQueueOrdersItsOwnReadyJobsByPath() {
    let run = QueueHarness(
      "queue main max=1\nqueue net max=1\nfetch queue=net\nbig-fetch queue=net\nbuild <- big-fetch\nlint",
      durations: ["fetch": 1, "big-fetch": 1, "build": 30, "lint": 2])
    run.start()
    // The net queue starts big-fetch, which heads build's path, before fetch; main has lint.
    #expect(Set(run.launch()) == ["big-fetch", "lint"])
  }

  @Test func aLivePriorityChangeStillPutsTheJobAtTheEndOfItsNewBand() {
    let run = QueueHarness("queue main max=1\nhold\nshort\nlong", durations: ["hold": 1, "short": 1, "long": 9])
    run.start()
    #expect(run.launch() == ["long"])
    #expect(run.engine.setPriority(run.id("hold"), .normal) == .changed)
    run.finish("long")
    // hold ranked before short by manifest order; re-queued, it comes after every job of its band.
    #expect(run.runToEnd() == ["short", "hold"])
  }

  @Test func remainingPathIsTheWeightPlusTheLongestRemainingPathOfADependent() {
    let graph = makeGraph("a\nb <- a\nc <- a\nd <- b,c\ne")
    let path = CriticalPath(graph: graph, durations: [0.5, 2, 4.25, nil, 0.001])
    #expect(path.weight(of: 3) == CriticalPath.unknownWeight)
    #expect(path.isKnown == [true, true, true, false, true])
    #expect(graph.jobs.indices.map(path.remainingPath(of:)) == [5.75, 3, 5.25, 1, 0.001])
    #expect(path.ranks == [0, 2, 1, 3, 4])
  }

  @Test func aNegativeOrInfiniteDurationCountsAsUnknown() {
    let graph = makeGraph("a\nb\nc")
    let path = CriticalPath(graph: graph, durations: [-1, .infinity, .nan])
    #expect(path.isKnown == [false, false, false])
    #expect(graph.jobs.indices.map(path.weight(of:)) == [1, 1, 1])
  }

  @Test func aChainOfAHundredThousandJobsIsMeasuredWithoutDeepRecursion() {
    let count = 100_000
    let jobs = (0..<count).map { id in
      JobNode(
        id: id, name: "j\(id)", queue: 0, dependencies: id == 0 ? [] : [id - 1], commands: ["true"],
        location: SourceLocation(file: "jobs.yaml", line: id + 1, column: 1))
    }
    let manifest = Manifest(path: "jobs.yaml", name: "main")
    let graph = connected(
      JobGraph(manifest: manifest, queues: [QueueNode(name: "main", maxConcurrent: 1)], jobs: jobs))
    let path = CriticalPath(graph: graph, durations: Array(repeating: 0.5, count: count))
    #expect(path.remainingPath(of: 0) == 50_000)
    #expect(path.remainingPath(of: count - 1) == 0.5)
    #expect(path.ranks == Array(0..<count))
  }

  @Test func randomRunsUnderCriticalPathStartTheBestRankedReadyJobFirst() async {
    await propertyCheck(count: 100, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 1...300)) { seed, jobCount in
      var random = SeededGenerator(seed: seed)
      let scenario = RandomScenario(jobCount: jobCount, random: &random)
      let weights = CriticalPathModel.randomWeights(count: jobCount, random: &random)
      var driver = RandomDriver(scenario: scenario, steering: random.chance(0.5), weights: weights)
      let violations = driver.run(&random)
      #expect(violations.isEmpty, "\(violations.prefix(5))")
    }
  }

  @Test func aSuccessfulSerialRunUnderCriticalPathStartsJobsInPlanOrder() async {
    await propertyCheck(count: 100, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 1...300)) { seed, jobCount in
      var random = SeededGenerator(seed: seed)
      let graph = RandomScenario.serialGraph(jobCount: jobCount, random: &random)
      let weights = CriticalPathModel.randomWeights(count: jobCount, random: &random)
      let criticalPath = CriticalPath(graph: graph, durations: weights.map { $0.map { Double($0) / 1000 } })
      #expect(criticalPath.ranks == CriticalPathModel(graph: graph, weights: weights).ranks)
      let engine = QueueEngine(graph: graph, failurePolicy: .stop, criticalPath: criticalPath, clock: { 0 })
      engine.start()
      let order = engine.runEveryLaunchToSuccess()
      #expect(order == graph.plan(criticalPath: criticalPath).map(\.job))
    }
  }
}
