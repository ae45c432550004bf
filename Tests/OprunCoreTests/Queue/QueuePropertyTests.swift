import PropertyBased
import Testing

@testable import OprunCore

/// Random runs: DAGs of up to a few hundred operations, random outcomes, priorities,
/// limits and live steering, checked against an independent model of the semantics.
@Suite struct QueuePropertyTests {
  @Test func randomRunsKeepEveryQueueInvariantAndDrain() async {
    await propertyCheck(count: 150, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 1...300)) { seed, jobCount in
      var random = SeededGenerator(seed: seed)
      let scenario = RandomScenario(jobCount: jobCount, random: &random)
      var driver = RandomDriver(scenario: scenario, steering: true)
      let violations = driver.run(&random)
      #expect(violations.isEmpty, "\(violations.prefix(5))")
    }
  }

  @Test func randomRunsWithoutSteeringKeepEveryQueueInvariantAndDrain() async {
    await propertyCheck(count: 100, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 1...300)) { seed, jobCount in
      var random = SeededGenerator(seed: seed)
      let scenario = RandomScenario(jobCount: jobCount, random: &random)
      var driver = RandomDriver(scenario: scenario, steering: false)
      let violations = driver.run(&random)
      #expect(violations.isEmpty, "\(violations.prefix(5))")
    }
  }

  @Test func cancellingEverythingAtAnyMomentDrainsWithEveryUnfinishedJobCancelled() async {
    await propertyCheck(count: 100, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 1...200)) { seed, jobCount in
      var random = SeededGenerator(seed: seed)
      let scenario = RandomScenario(jobCount: jobCount, random: &random)
      var driver = RandomDriver(scenario: scenario, steering: false)
      driver.cancelAllAfter = Int.random(in: 0...jobCount, using: &random)
      let violations = driver.run(&random)
      #expect(violations.isEmpty, "\(violations.prefix(5))")
      let engine = driver.engine
      for job in scenario.graph.jobs.indices where driver.unfinishedAtCancelAll.contains(job) {
        let outcome = engine.outcome(of: job)
        #expect(outcome == .cancelled || (outcome == .skipped && engine.cancelReason(of: job) == .dependencyFailed))
      }
    }
  }

  @Test func successfulRunOfOneSerialQueueStartsJobsInPlanOrder() async {
    await propertyCheck(count: 100, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 1...300)) { seed, jobCount in
      var random = SeededGenerator(seed: seed)
      let graph = RandomScenario.serialGraph(jobCount: jobCount, random: &random)
      let engine = QueueEngine(graph: graph, failurePolicy: .stop, clock: { 0 })
      engine.start()
      let order = engine.runEveryLaunchToSuccess()
      #expect(engine.isDrained)
      #expect(order == graph.plan().map(\.job))
      #expect(engine.exitStatus() == 0)
    }
  }
}

/// A fake executor that finishes running jobs in random order with random outcomes and,
/// when steering, cancels, suspends, re-limits and re-prioritises at random moments.
struct RandomDriver {
  let scenario: RandomScenario
  let steering: Bool
  let engine: QueueEngine
  let checker: QueueInvariantChecker
  /// Cancel every queue once this many jobs have finished (nil: never).
  var cancelAllAfter: Int?
  /// The jobs not finished when everything was cancelled.
  private(set) var unfinishedAtCancelAll: Set<JobID> = []

  /// `weights`: whole milliseconds per job (nil: unknown) for `--schedule critical-path`,
  /// which the checker models on its own (``CriticalPathModel``); FIFO without them.
  init(scenario: RandomScenario, steering: Bool, resumePlan: ResumePlan? = nil, weights: [Int?]? = nil) {
    self.scenario = scenario
    self.steering = steering
    let criticalPath = weights.map { weights in
      CriticalPath(graph: scenario.graph, durations: weights.map { $0.map { Double($0) / 1000 } })
    }
    engine = QueueEngine(
      graph: scenario.graph, failurePolicy: scenario.failurePolicy, resumePlan: resumePlan,
      criticalPath: criticalPath, clock: { 0 })
    checker = QueueInvariantChecker(
      graph: scenario.graph, failurePolicy: scenario.failurePolicy, resumePlan: resumePlan,
      startOrder: weights.map { CriticalPathModel(graph: scenario.graph, weights: $0).ranks })
    engine.addObserver(checker)
  }

  /// Runs the scenario to its end; the violations seen, empty when every invariant held.
  mutating func run(_ random: inout SeededGenerator) -> [String] {
    engine.start()
    var executing: [JobID] = []
    var finished = 0
    let maxSteps = scenario.graph.jobs.count * 8 + 100
    // Each step: maybe steer, start what may start, then end one executing job.
    for _ in 0..<maxSteps {
      if engine.isDrained { break }
      if steering { steer(&random, executing: executing) }
      if let limit = cancelAllAfter, finished >= limit, unfinishedAtCancelAll.isEmpty {
        unfinishedAtCancelAll = Set(scenario.graph.jobs.indices.filter { engine.outcome(of: $0) == nil })
        engine.cancelAll(reason: .interrupt)
        cancelAllAfter = nil
      }
      let readyBefore = checker.readyJobsByQueue()
      let launches = engine.nextLaunches()
      checker.checkLaunches(launches, readyBefore: readyBefore, engine: engine)
      for launch in launches {
        engine.didStart(launch.job)
        executing.append(launch.job)
      }
      for problem in engine.invariantViolations() { checker.violation(problem) }
      if engine.isDrained { break }
      if executing.isEmpty {
        guard launches.isEmpty else { continue }
        // Nothing runs and nothing started: only a suspended queue may hold the rest.
        let suspended = scenario.graph.queues.indices.filter { engine.isSuspended($0) }
        if suspended.isEmpty {
          checker.violation(
            "run hangs: nothing runs, nothing starts, \(finishedCount) of \(scenario.graph.jobs.count) finished")
          break
        }
        for queue in suspended { engine.setSuspended(queue, false) }
        continue
      }
      let index = Int.random(in: 0..<executing.count, using: &random)
      let job = executing.remove(at: index)
      endAttempt(of: job, &random)
      if engine.outcome(of: job) != nil { finished += 1 }
    }
    if !engine.isDrained { checker.violation("run did not drain in \(maxSteps) steps") }
    checker.checkEnd(engine)
    return checker.violations
  }

  private var finishedCount: Int { scenario.graph.jobs.indices.count { engine.outcome(of: $0) != nil } }

  private func endAttempt(of job: JobID, _ random: inout SeededGenerator) {
    let roll = Double.random(in: 0..<1, using: &random)
    switch roll {
    case ..<0.7:
      engine.didFinish(job, succeeded: true)
    case ..<0.9:
      engine.didFinish(job, succeeded: false)
    default:
      engine.timedOut(job)
      engine.didFinish(job, succeeded: !random.chance(0.8))
    }
  }

  private func steer(_ random: inout SeededGenerator, executing: [JobID]) {
    let graph = scenario.graph
    let anyJob = Int.random(in: 0..<graph.jobs.count, using: &random)
    let anyQueue = Int.random(in: 0..<graph.queues.count, using: &random)
    let roll = Double.random(in: 0..<1, using: &random)
    switch roll {
    case ..<0.03:
      engine.cancel(anyJob, reason: .control)
    case ..<0.035:
      let queues = graph.queues.indices.filter { _ in random.chance(0.5) }
      engine.cancelAll(queues: queues, reason: .control)
    case ..<0.08:
      engine.setSuspended(anyQueue, random.chance(0.5))
    case ..<0.11:
      engine.setMaxConcurrent(anyQueue, Int.random(in: 1...4, using: &random))
    case ..<0.15:
      _ = engine.setPriority(anyJob, random.pick(Priority.allCases))
    case ..<0.17:
      if let job = executing.randomElement(using: &random) { engine.timedOut(job) }
    default:
      break
    }
  }
}
