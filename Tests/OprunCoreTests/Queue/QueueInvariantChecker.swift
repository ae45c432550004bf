@testable import OprunCore

/// An independent model of a run, fed by the engine's events, that records every
/// violation of the queue semantics it can see.
///
/// The model keeps its own view of each job's state, flag, band and place in its band, so
/// that it checks the engine against the rules rather than against itself.
final class QueueInvariantChecker: RunObserver {
  let graph: JobGraph
  let failurePolicy: FailurePolicy
  /// `--resume`'s plan the engine was given, if any.
  let resumePlan: ResumePlan?
  private(set) var violations: [String] = []
  /// The jobs that finished resumed.
  private(set) var resumedJobs: Set<JobID> = []
  private var states: [JobState]
  private var finishCounts: [Int]
  private var cancelReasons: [CancelReason?]
  private var outcomes: [Outcome?]
  private var bands: [Priority]
  private var sequences: [Int]
  private var nextSequence: Int
  private var stopFired = false

  /// `startOrder`: each job's place among equals in priority when the run starts (the
  /// model's own ranks under `--schedule critical-path`); manifest order without it.
  init(graph: JobGraph, failurePolicy: FailurePolicy, resumePlan: ResumePlan? = nil, startOrder: [Int]? = nil) {
    self.graph = graph
    self.failurePolicy = failurePolicy
    self.resumePlan = resumePlan
    let count = graph.jobs.count
    states = Array(repeating: .pending, count: count)
    finishCounts = Array(repeating: 0, count: count)
    cancelReasons = Array(repeating: nil, count: count)
    outcomes = Array(repeating: nil, count: count)
    bands = graph.jobs.map { $0.band(onSerialQueue: graph.queues[$0.queue].maxConcurrent == 1) }
    sequences = startOrder ?? Array(0..<count)
    nextSequence = count
  }

  func violation(_ message: String) {
    violations.append(message)
  }

  func observe(_ event: RunEvent) {
    switch event.kind {
    case .transition(let transition):
      check(transition)
    case .cancelled(let job, let reason):
      if states[job] == .finished { violation("j\(job) cancelled after it finished") }
      if reason == .timeout {
        if states[job] != .executing { violation("j\(job) timed out while \(states[job])") }
      } else {
        if cancelReasons[job] != nil { violation("j\(job) cancelled twice") }
        cancelReasons[job] = reason
      }
    case .priority(let job, let priority):
      if states[job] > .ready { violation("j\(job) re-prioritised while \(states[job])") }
      bands[job] = priority
      sequences[job] = nextSequence
      nextSequence += 1
    default:
      break
    }
  }

  // MARK: Transitions

  private func check(_ transition: Transition) {
    let job = transition.job
    let node = graph.jobs[job]
    if states[job] != transition.from {
      violation("j\(job) went \(transition.from)>\(transition.to) while \(states[job])")
    }
    let decision = resumePlan?.decisions[job]
    if transition.decision != (transition.from == .pending ? decision : nil) {
      violation(
        "j\(job) went \(transition.from)>\(transition.to) with decision \(String(describing: transition.decision))")
    }
    if transition.resumed, (transition.from, transition.to) != (.ready, .finished) {
      violation("j\(job) resumed on \(transition.from)>\(transition.to)")
    }
    switch (transition.from, transition.to) {
    case (.pending, .ready):
      if cancelReasons[job] == nil, !dependenciesFinished(job) { violation("j\(job) ready before its dependencies") }
    case (.ready, .executing):
      if !dependenciesFinished(job) { violation("j\(job) executes before its dependencies finished") }
      if cancelReasons[job] != nil { violation("j\(job) executes although cancelled") }
      if !runConditionHolds(job) { violation("j\(job) executes although its run-if does not hold") }
      if stopFired, node.runIf == .success { violation("j\(job) starts after on-failure stop fired") }
      if decision == .resumed { violation("j\(job) executes although resumed") }
    case (.ready, .finished) where transition.resumed:
      checkResumed(transition)
    case (.ready, .finished):
      guard let reason = cancelReasons[job] else {
        violation("j\(job) finished without executing, not cancelled")
        break
      }
      let expected: Outcome = reason == .dependencyFailed ? .skipped : .cancelled
      if transition.outcome != expected {
        violation("j\(job) finished \(String(describing: transition.outcome)), not \(expected)")
      }
    case (.executing, .finished):
      if cancelReasons[job] != nil, transition.outcome != .cancelled {
        violation("j\(job) cancelled but \(String(describing: transition.outcome))")
      }
    case (.executing, .ready):
      if cancelReasons[job] != nil { violation("j\(job) retried although cancelled") }
      if transition.attempt > node.retries + 1 { violation("j\(job) attempt \(transition.attempt) beyond its retries") }
    default:
      violation("j\(job) made an impossible transition \(transition.from)>\(transition.to)")
    }
    states[job] = transition.to
    if transition.to == .finished { recordFinish(transition) }
  }

  /// A job finished without executing because `--resume` resumed it.
  private func checkResumed(_ transition: Transition) {
    let job = transition.job
    resumedJobs.insert(job)
    if resumePlan?.decisions[job] != .resumed { violation("j\(job) resumed although the plan runs it") }
    if cancelReasons[job] != nil { violation("j\(job) resumed although cancelled") }
    if !dependenciesFinished(job) { violation("j\(job) resumed before its dependencies finished") }
    if !runConditionHolds(job) { violation("j\(job) resumed although its run-if does not hold") }
    if transition.outcome != .succeeded || transition.duration != 0 {
      violation(
        "j\(job) resumed \(String(describing: transition.outcome)) in \(String(describing: transition.duration))")
    }
  }

  private func recordFinish(_ transition: Transition) {
    finishCounts[transition.job] += 1
    outcomes[transition.job] = transition.outcome
    if failurePolicy == .stop, transition.outcome == .failed || transition.outcome == .timedOut {
      stopFired = true
    }
  }

  private func dependenciesFinished(_ job: JobID) -> Bool {
    graph.jobs[job].dependencies.allSatisfy { states[$0] == .finished }
  }

  private func runConditionHolds(_ job: JobID) -> Bool {
    let anyUnsuccessful = graph.jobs[job].dependencies.contains { outcomes[$0] != .succeeded }
    switch graph.jobs[job].runIf {
    case .success: return !anyUnsuccessful
    case .always: return true
    case .failure: return anyUnsuccessful
    }
  }

  // MARK: Starts

  /// The ready jobs of each queue, as the model sees them; take it before `nextLaunches()`.
  func readyJobsByQueue() -> [[JobID]] {
    var ready = Array(repeating: [JobID](), count: graph.queues.count)
    for job in graph.jobs.indices where states[job] == .ready { ready[graph.jobs[job].queue].append(job) }
    return ready
  }

  /// `a` ranks before `b` in their queue: higher band, then earlier in the band.
  private func ranksBefore(_ a: JobID, _ b: JobID) -> Bool {
    bands[a] != bands[b] ? bands[a] > bands[b] : sequences[a] < sequences[b]
  }

  /// Checks one `nextLaunches()` answer, before the launches are started: start order,
  /// limits, and that no queue with a free slot kept a ready job.
  func checkLaunches(_ launches: [Launch], readyBefore: [[JobID]], engine: QueueEngine) {
    let launchedJobs = Set(launches.map(\.job))
    for queue in graph.queues.indices {
      let launched = launches.map(\.job).filter { graph.jobs[$0].queue == queue }
      let wasReady = Set(readyBefore[queue])
      let stillWaiting = readyBefore[queue].filter { states[$0] == .ready && !launchedJobs.contains($0) }
      for (index, first) in launched.enumerated() {
        for later in launched[(index + 1)...] where wasReady.contains(first) && wasReady.contains(later) {
          if !ranksBefore(first, later) { violation("j\(first) started before j\(later), which ranks higher") }
        }
        for waiting in stillWaiting where !ranksBefore(first, waiting) {
          violation("j\(first) started while j\(waiting), ranking higher, waited in its queue")
        }
      }
      let running = engine.runningCount(queue: queue)
      if !launched.isEmpty, running > engine.maxConcurrent(of: queue) {
        violation("queue \(queue) runs \(running) over its limit \(engine.maxConcurrent(of: queue))")
      }
      let nowReady = graph.jobs.indices.contains {
        states[$0] == .ready && graph.jobs[$0].queue == queue && !launchedJobs.contains($0)
      }
      if nowReady, !engine.isSuspended(queue), running < engine.maxConcurrent(of: queue) {
        violation("queue \(queue) has a free slot and a ready job after nextLaunches()")
      }
    }
  }

  // MARK: End

  /// Checks a drained run: one finish per job, counts and exit status as the model says.
  func checkEnd(_ engine: QueueEngine) {
    for job in graph.jobs.indices where finishCounts[job] != 1 {
      violation("j\(job) finished \(finishCounts[job]) times")
    }
    var counts = Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0, 0) })
    for outcome in outcomes.compactMap({ $0 }) { counts[outcome, default: 0] += 1 }
    if counts != engine.counts { violation("counts \(engine.counts), model \(counts)") }
    let failures = counts[.failed]! + counts[.timedOut]! + counts[.cancelled]!
    if engine.exitStatus() != (failures == 0 ? 0 : 1) { violation("exit status \(engine.exitStatus())") }
  }
}
