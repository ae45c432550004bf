import PropertyBased
import Testing

@testable import OprunCore

/// Random runs under a budget (SPEC §12): random graphs over a few queues, random needs,
/// durations that past runs guessed right or wrong, attempts that run out of memory, and
/// live budget, limit and priority changes and cancellations. Whatever happens, running jobs
/// never need more than the budget, and every job not cancelled starts: none is starved by
/// smaller jobs, and the run never hangs.
@Suite struct QueueResourcePropertyTests {
  @Test func runningNeedsNeverPassTheBudgetAndEveryJobStarts() async {
    await propertyCheck(count: 200, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 1...150)) { seed, jobCount in
      var random = SeededGenerator(seed: seed)
      var simulation = BudgetSimulation(jobCount: jobCount, random: &random)
      let problems = simulation.run(&random)
      #expect(problems.isEmpty, "seed \(seed), \(jobCount) jobs: \(problems.prefix(5))")
    }
  }
}

extension QueueResourcePropertyTests {
  /// A run that once hung: a job refused for the reserved job's sake took the reservation
  /// from it at the same clock time, and was parked with nothing running to wake it.
  @Test func aJobThatTakesTheReservationStartsWhenItFits() {
    var random = SeededGenerator(seed: 6_185_878_700_258_154_153)
    var simulation = BudgetSimulation(jobCount: 31, random: &random)
    #expect(simulation.run(&random).isEmpty)
  }
}

/// A clocked fake executor: each started attempt ends after its own duration, the earliest
/// first, so that the engine's backfill reads the same clock the jobs end by.
struct BudgetSimulation {
  let graph: JobGraph
  let engine: QueueEngine
  let clock: SimulatedClock
  /// Seconds each job really takes; past runs guessed `pastDurations`, right or not.
  let durations: [Double]
  var budget: ResourceBudget
  let steering: Bool

  init(jobCount: Int, random: inout SeededGenerator) {
    var graph = RandomScenario(jobCount: jobCount, random: &random).graph
    let budget = ResourceBudget(
      cpus: Int.random(in: 1...8, using: &random), memory: Int.random(in: 1...16, using: &random) << 20)
    for job in graph.jobs.indices {
      // Every job runs, whatever the others' outcomes, so that every job must start.
      graph.jobs[job].runIf = .always
      let location = graph.jobs[job].location
      if random.chance(0.8) {
        graph.jobs[job].resources.cpus = Located(Int.random(in: 1...budget.cpus, using: &random), at: location)
      }
      if random.chance(0.5) {
        graph.jobs[job].resources.memory = Located(
          Int.random(in: 1...budget.memory >> 20, using: &random) << 20, at: location)
      }
    }
    durations = graph.jobs.map { _ in Double(Int.random(in: 1...20, using: &random)) }
    let guesses = durations.map { duration -> Double? in
      switch Double.random(in: 0..<1, using: &random) {
      case ..<0.3: nil
      case ..<0.7: duration
      default: Double(Int.random(in: 1...20, using: &random))
      }
    }
    let clock = SimulatedClock()
    self.clock = clock
    self.graph = graph
    self.budget = budget
    steering = random.chance(0.5)
    engine = QueueEngine(
      graph: graph, failurePolicy: .continue, resources: ResourcePlan(budget: budget, pastDurations: guesses),
      clock: { clock.now })
  }

  /// Runs to the end; the problems seen, empty when every invariant held.
  mutating func run(_ random: inout SeededGenerator) -> [String] {
    var problems: [String] = []
    var started = Array(repeating: false, count: graph.jobs.count)
    var running: [(end: Double, job: JobID)] = []
    engine.start()
    for _ in 0..<(graph.jobs.count * 6 + 50) {
      if engine.isDrained { break }
      for launch in engine.nextLaunches() {
        engine.didStart(launch.job)
        started[launch.job] = true
        running.append((clock.now + durations[launch.job], launch.job))
      }
      problems += engine.invariantViolations()
      if steering { steer(&random) }
      if engine.isDrained { break }
      guard let next = running.indices.min(by: { running[$0].end < running[$1].end }) else {
        problems.append("hangs at \(clock.now) s: nothing runs, nothing starts")
        break
      }
      let ending = running.remove(at: next)
      clock.now = max(clock.now, ending.end)
      let failed = random.chance(0.15)
      engine.didFinish(ending.job, succeeded: !failed, outOfMemory: failed && random.chance(0.5))
      problems += engine.invariantViolations()
    }
    if !engine.isDrained { problems.append("did not drain") }
    for job in graph.jobs.indices where !started[job] && !engine.isCancelled(job) {
      problems.append("job \(job) never started")
    }
    return problems
  }

  /// Now and then: a live budget, a cancelled job, a new priority, a new queue limit.
  private mutating func steer(_ random: inout SeededGenerator) {
    let job = Int.random(in: 0..<graph.jobs.count, using: &random)
    switch Double.random(in: 0..<1, using: &random) {
    case ..<0.1: changeBudget(&random)
    case ..<0.12: engine.cancel(job, reason: .control)
    case ..<0.17: _ = engine.setPriority(job, random.pick(Priority.allCases))
    case ..<0.22:
      engine.setMaxConcurrent(Int.random(in: 0..<graph.queues.count, using: &random), Int.random(in: 1...4, using: &random))
    default: break
    }
  }

  /// Raises or lowers the budget, never below what an unfinished job needs.
  private mutating func changeBudget(_ random: inout SeededGenerator) {
    let candidate = ResourceBudget(
      cpus: Int.random(in: 1...10, using: &random), memory: Int.random(in: 1...20, using: &random) << 20)
    guard engine.jobsBeyond(candidate).isEmpty else { return }
    budget = candidate
    engine.setBudget(candidate)
  }
}

/// The run's clock, which the simulation moves on as attempts end.
final class SimulatedClock: @unchecked Sendable {
  var now = 0.0
}
