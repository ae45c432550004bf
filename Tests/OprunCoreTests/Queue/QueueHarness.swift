@testable import OprunCore

/// Records every event an engine emits, and renders them as short lines for tests.
final class EventLog: RunObserver {
  private(set) var events: [RunEvent] = []
  let graph: JobGraph

  init(graph: JobGraph) {
    self.graph = graph
  }

  func observe(_ event: RunEvent) {
    events.append(event)
  }

  func clear() {
    events.removeAll()
  }

  /// `a pending>ready`, `a executing>finished failed`, `b ready>finished succeeded resumed`,
  /// `a cancelled control`, `queue net suspended`, `queue net limit 3`, `a priority high`.
  var lines: [String] {
    events.compactMap { event in
      switch event.kind {
      case .transition(let transition):
        let outcome = transition.outcome.map { " \($0.rawValue)" } ?? ""
        let resumed = transition.resumed ? " resumed" : ""
        return "\(name(transition.job)) \(transition.from)>\(transition.to)\(outcome)\(resumed)"
      case .cancelled(let job, let reason):
        return "\(name(job)) cancelled \(reason.rawValue)"
      case .queueState(let queue, let state):
        return "queue \(graph.queues[queue].name) \(state.rawValue)"
      case .limit(let queue, let limit):
        return "queue \(graph.queues[queue].name) limit \(limit)"
      case .priority(let job, let priority):
        return "\(name(job)) priority \(priority.word)"
      default:
        return nil
      }
    }
  }

  var transitions: [Transition] {
    events.compactMap { event in
      if case .transition(let transition) = event.kind { return transition }
      return nil
    }
  }

  /// The lines about one job.
  func lines(of job: String) -> [String] {
    lines.filter { $0.hasPrefix(job + " ") }
  }

  private func name(_ job: JobID) -> String { graph.jobs[job].name }
}

/// An engine, its event log and a hand-driven fake executor, addressed by job names.
final class QueueHarness {
  let graph: JobGraph
  let engine: QueueEngine
  let log: EventLog
  var now: Double = 0

  /// `resume` gives `--resume`'s decision for some jobs by name; every other job runs as
  /// if there were no journal. Without it there is no resume plan at all.
  /// `durations` (seconds, by job name; a job not named has none known) schedules by
  /// `--schedule critical-path`; without it the run is FIFO. `budget` schedules jobs'
  /// needs against it, backfilling by `pastDurations` (seconds, by job name).
  init(
    _ description: String, failurePolicy: FailurePolicy = .stop, resume: [String: RunDecision]? = nil,
    durations: [String: Double]? = nil, budget: ResourceBudget? = nil, pastDurations: [String: Double] = [:]
  ) {
    let graph = makeGraph(description)
    self.graph = graph
    let log = EventLog(graph: graph)
    self.log = log
    var clockSource: () -> Double = { 0 }
    let plan = resume.map { decisions in
      ResumePlan(decisions: graph.jobs.map { decisions[$0.name] ?? .runs(.noJournal) }, journalRun: "last")
    }
    let criticalPath = durations.map { known in
      CriticalPath(graph: graph, durations: graph.jobs.map { known[$0.name] })
    }
    let resources = budget.map { ResourcePlan(budget: $0, pastDurations: graph.jobs.map { pastDurations[$0.name] }) }
    engine = QueueEngine(
      graph: graph, failurePolicy: failurePolicy, resumePlan: plan, criticalPath: criticalPath, resources: resources,
      clock: { clockSource() })
    clockSource = { [unowned self] in self.now }
    engine.addObserver(log)
  }

  func id(_ name: String) -> JobID { graph.job(named: name)! }
  func queue(_ name: String) -> QueueID { graph.queue(named: name)! }
  func names(_ jobs: [JobID]) -> [String] { jobs.map { graph.jobs[$0].name } }

  func start() {
    engine.start()
  }

  /// The jobs `nextLaunch()` hands out until it has none, each started at once.
  @discardableResult
  func launch() -> [String] {
    let launches = engine.nextLaunches()
    for launch in launches { engine.didStart(launch.job) }
    engine.checkInvariants()
    return names(launches.map(\.job))
  }

  func finish(_ name: String, succeeded: Bool = true, outOfMemory: Bool = false) {
    engine.didFinish(id(name), succeeded: succeeded, outOfMemory: outOfMemory)
    engine.checkInvariants()
  }

  func fail(_ name: String) {
    finish(name, succeeded: false)
  }

  /// Launches and finishes everything, one batch at a time, in start order; the jobs named
  /// in `failing` fail, the others succeed. Returns the start order.
  @discardableResult
  func runToEnd(failing: Set<String> = []) -> [String] {
    var order: [String] = []
    while true {
      let batch = launch()
      if batch.isEmpty { break }
      order += batch
      for name in batch { finish(name, succeeded: !failing.contains(name)) }
    }
    return order
  }

  func outcome(_ name: String) -> Outcome? { engine.outcome(of: id(name)) }
  func state(_ name: String) -> JobState { engine.state(of: id(name)) }
}

extension QueueEngine {
  /// Every launch `nextLaunch()` hands out now, in start order: what a driver starts when
  /// nothing it starts changes the run.
  func nextLaunches() -> [Launch] {
    var launches: [Launch] = []
    while let launch = nextLaunch() { launches.append(launch) }
    return launches
  }
}
