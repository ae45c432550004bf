extension QueueEngine {
  /// Begins the run: every job with no dependencies goes pending → ready, in manifest order.
  ///
  /// Every job is pending before this call; no event marks that. Call it once. A job
  /// cancelled before this call has already gone ready.
  public func start() {
    precondition(!hasStarted, "QueueEngine.start() called twice")
    hasStarted = true
    for job in graph.jobs.indices where phase[job] == .pending && unfinishedDependencies[job] == 0 {
      becomeReady(job)
    }
  }

  /// Every operation that may start now, in start order, each now holding a slot.
  ///
  /// Within a queue, operations start by band (higher first), then sequence (manifest
  /// order, or the end of the band after a live priority change), while the queue is not
  /// suspended and has a free slot. A cancelled or skipped operation the queue reaches
  /// takes that slot only to finish at once (ready → finished, without executing) and is
  /// not returned; what its finishing releases competes in the same call.
  public func nextLaunches() -> [Launch] {
    var launches: [Launch] = []
    var index = 0
    // Draining a queue can finish cancelled jobs and so list other queues (or the same
    // one again): the list grows while it is walked.
    while index < queuesWithWork.count {
      let queue = queuesWithWork[index]
      queues[queue].isListed = false
      startReady(in: queue, into: &launches)
      index += 1
    }
    queuesWithWork.removeAll(keepingCapacity: true)
    return launches
  }

  private func startReady(in queue: QueueID, into launches: inout [Launch]) {
    while queues[queue].hasFreeSlot, let entry = queues[queue].heap.popTop() {
      let job = entry.job
      guard phase[job] == .ready, entry.sequence == sequences[job] else { continue }
      if cancelReason[job] != nil {
        finishWithoutExecuting(job)
      } else if waitsForConsole(job) {
        continue
      } else {
        takeConsole(job)
        phase[job] = .launching
        queues[queue].running += 1
        launches.append(Launch(job: job, attempt: attempts[job]))
      }
    }
  }

  /// pending → ready, because the last dependency finished (or at start); then `run-if`.
  func becomeReady(_ job: JobID) {
    phase[job] = .ready
    emitTransition(job, from: .pending, to: .ready)
    enqueue(job)
    if !runConditionHolds(job) {
      raiseCancelledFlag(job, reason: .dependencyFailed)
    }
  }

  /// Whether a job whose dependencies have all finished runs, by its `run-if`.
  func runConditionHolds(_ job: JobID) -> Bool {
    switch graph.jobs[job].runIf {
    case .success: unsuccessfulDependencies[job] == 0
    case .always: true
    case .failure: unsuccessfulDependencies[job] > 0
    }
  }

  /// Puts a ready job in its queue's heap at its current band and sequence.
  func enqueue(_ job: JobID) {
    let queue = queue(of: job)
    queues[queue].heap.push(job: job, band: bands[job], sequence: sequences[job])
    listQueue(queue)
  }

  /// Marks `queue` as worth visiting at the next `nextLaunches()`.
  func listQueue(_ queue: QueueID) {
    guard !queues[queue].isListed else { return }
    queues[queue].isListed = true
    queuesWithWork.append(queue)
  }

  /// A cancelled job reached by its queue: ready → finished without executing.
  func finishWithoutExecuting(_ job: JobID) {
    let outcome: Outcome = cancelReason[job] == .dependencyFailed ? .skipped : .cancelled
    finish(job, from: .ready, outcome: outcome, termination: nil, duration: 0, at: clock())
  }

  /// The one place a job finishes: records the outcome, emits the transition, applies
  /// `on-failure`, then releases the dependents (whose `run-if` is applied as they become ready).
  func finish(
    _ job: JobID, from: JobState, outcome: Outcome, termination: Termination?, duration: Double, at time: Double
  ) {
    phase[job] = .finished
    outcomes[job] = outcome
    currentPids[job] = []
    finishedCount += 1
    outcomeCounts[outcome, default: 0] += 1
    emitTransition(
      job, from: from, to: .finished, at: time, outcome: outcome, termination: termination, duration: duration)
    if outcome == .failed || outcome == .timedOut {
      applyFailurePolicy()
    }
    releaseDependents(of: job, succeeded: outcome == .succeeded)
  }

  private func releaseDependents(of job: JobID, succeeded: Bool) {
    for dependent in graph.jobs[job].dependents where phase[dependent] == .pending {
      if !succeeded { unsuccessfulDependencies[dependent] += 1 }
      unfinishedDependencies[dependent] -= 1
      if unfinishedDependencies[dependent] == 0 {
        becomeReady(dependent)
      }
    }
  }

  func emitTransition(
    _ job: JobID, from: JobState, to: JobState, at time: Double? = nil, pids: [Int32] = [],
    outcome: Outcome? = nil, termination: Termination? = nil, duration: Double? = nil
  ) {
    guard !observers.isEmpty else { return }
    let transition = Transition(
      job: job, queue: queue(of: job), from: from, to: to, attempt: attempts[job], pids: pids,
      outcome: outcome, termination: termination, duration: duration)
    emit(.transition(transition), at: time ?? clock())
  }
}
