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

  /// The next operation to start now, holding a slot from this moment; nil when no queue
  /// can start anything.
  ///
  /// One at a time, so that whatever starting it changes (a launch that fails at once, a
  /// failure policy) is seen by the next call. Within a queue, operations start by band
  /// (higher first), then sequence (manifest order, or the longest remaining path then
  /// manifest order under `--schedule critical-path`, or the end of the band after a live
  /// priority change), while the queue is not suspended and has a free slot. A cancelled or
  /// skipped operation the queue reaches takes that slot only to finish at once (ready →
  /// finished, without executing) and is not returned; what its finishing releases competes
  /// at once.
  public func nextLaunch() -> Launch? {
    // Finishing cancelled jobs can list other queues (or list again one already passed):
    // the list grows while it is walked. The queue under the cursor stays listed until it
    // has nothing more to start.
    while listCursor < queuesWithWork.count {
      let queue = queuesWithWork[listCursor]
      if let launch = startNext(in: queue) { return launch }
      queues[queue].isListed = false
      listCursor += 1
    }
    queuesWithWork.removeAll(keepingCapacity: true)
    listCursor = 0
    return nil
  }

  private func startNext(in queue: QueueID) -> Launch? {
    while queues[queue].hasFreeSlot, let entry = queues[queue].heap.popTop() {
      let job = entry.job
      guard phase[job] == .ready, entry.sequence == sequences[job] else { continue }
      if cancelReason[job] != nil {
        finishWithoutExecuting(job)
      } else if waitsForConsole(job) || waitsForResources(job) {
        continue
      } else {
        takeConsole(job)
        takeResources(job)
        phase[job] = .launching
        queues[queue].running += 1
        var launch = Launch(job: job, attempt: attempts[job])
        if ledger != nil { launch.needs = needs(of: job) }
        return launch
      }
    }
    return nil
  }

  /// pending → ready, because `lastDependency` finished (nil: at start); then `run-if`.
  /// A job `--resume` resumes finishes at once instead, without taking a slot. A job whose
  /// files decide is ready all the same, and waits outside its queue for them to be looked at.
  func becomeReady(_ job: JobID, after lastDependency: JobID? = nil) {
    if checksFiles[job], cancelReason[job] == nil, runConditionHolds(job) {
      phase[job] = .checking
      checksToStart.append(job)
      emitTransition(job, from: .pending, to: .ready, readyAfter: lastDependency)
      return
    }
    phase[job] = .ready
    // --resume planned every dependency resumed; one that ran all the same (its files said
    // so) makes this job run too, and so on down.
    let plannedResumed = resumePlan?.decisions[job] == .resumed
    let ranDependency = plannedResumed ? graph.jobs[job].dependencies.first { breaksResumedChain[$0] } : nil
    if ranDependency != nil { breaksResumedChain[job] = true }
    emitTransition(
      job, from: .pending, to: .ready, readyAfter: lastDependency,
      decision: ranDependency.map { .runs(.dependencyRan($0)) })
    if plannedResumed, ranDependency == nil, !checksFiles[job], runConditionHolds(job) {
      finishResumed(job)
      return
    }
    enqueue(job)
    if !runConditionHolds(job) {
      raiseCancelledFlag(job, reason: .dependencyFailed)
    }
  }

  /// The next ready job whose files must be looked at before it can start, once each; nil
  /// when there is none. The driver answers with ``checked(_:decision:)``.
  public func nextCheck() -> JobID? {
    while nextCheckIndex < checksToStart.count {
      let job = checksToStart[nextCheckIndex]
      nextCheckIndex += 1
      if phase[job] == .checking { return job }
    }
    checksToStart.removeAll(keepingCapacity: true)
    nextCheckIndex = 0
    return nil
  }

  /// What a job's files decided (SPEC §10): the ready job finishes at once, up to date,
  /// without taking a slot — or joins its queue like any ready job. Its next transition (to
  /// finished, or to executing) says what was decided. Ignored once the job was cancelled
  /// meanwhile (it joined its queue then, and is never up to date).
  public func checked(_ job: JobID, decision: RunDecision) {
    guard phase[job] == .checking else { return }
    if decision == .upToDate || decision == .restored {
      finish(
        job, from: .ready, outcome: .succeeded, duration: 0, at: clock(), upToDate: decision == .upToDate,
        decision: decision)
    } else {
      phase[job] = .ready
      decisionToAnnounce[job] = decision
      enqueue(job)
    }
  }

  /// Finishes a resumed job, and then each resumed job its finishing makes ready, in the
  /// order they become ready: one after the other rather than nested, so that a chain of
  /// 100,000 resumed jobs takes no more stack than one.
  private func finishResumed(_ job: JobID) {
    resumedToFinish.append(job)
    guard resumedToFinish.count == 1 else { return }
    var next = 0
    while next < resumedToFinish.count {
      finish(resumedToFinish[next], from: .ready, outcome: .succeeded, duration: 0, at: clock(), resumed: true)
      next += 1
    }
    resumedToFinish.removeAll(keepingCapacity: true)
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
    markWorthVisiting(queue)
  }

  /// Marks `queue` as worth visiting at the next `nextLaunch()`.
  func markWorthVisiting(_ queue: QueueID) {
    guard !queues[queue].isListed else { return }
    queues[queue].isListed = true
    queuesWithWork.append(queue)
  }

  /// A cancelled job reached by its queue: ready → finished without executing.
  func finishWithoutExecuting(_ job: JobID) {
    let outcome: Outcome = cancelReason[job] == .dependencyFailed ? .skipped : .cancelled
    finish(job, from: .ready, outcome: outcome, duration: 0, at: clock())
  }

  /// The one place a job finishes: records the outcome, emits the transition, applies
  /// `on-failure`, then releases the dependents (whose `run-if` is applied as they become ready).
  func finish(
    _ job: JobID, from: JobState, outcome: Outcome, duration: Double, at time: Double, resumed: Bool = false,
    upToDate: Bool = false, decision: RunDecision? = nil
  ) {
    if ledger != nil { stopWaitingForResources(job) }
    phase[job] = .finished
    outcomes[job] = outcome
    finishedCount += 1
    outcomeCounts[outcome, default: 0] += 1
    emitTransition(
      job, from: from, to: .finished, at: time, outcome: outcome, duration: duration, resumed: resumed,
      upToDate: upToDate, decision: decision)
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
        becomeReady(dependent, after: job)
      }
    }
  }

  /// The engine's part of a transition; pids and terminations are the runtime's to add.
  /// Under `--resume`, a job's first transition says what was decided for it; for a job
  /// whose files decide, the transition that leaves ready once they have said it.
  func emitTransition(
    _ job: JobID, from: JobState, to: JobState, at time: Double? = nil, outcome: Outcome? = nil,
    duration: Double? = nil, resumed: Bool = false, upToDate: Bool = false, readyAfter: JobID? = nil,
    decision: RunDecision? = nil, retryMemory: Int? = nil
  ) {
    let announced = from == .ready ? decisionToAnnounce[job] : nil
    if announced != nil { decisionToAnnounce[job] = nil }
    guard !observers.isEmpty else { return }
    var transition = Transition(
      job: job, queue: queue(of: job), from: from, to: to, attempt: attempts[job], outcome: outcome,
      duration: duration, resumed: resumed)
    if from == .pending, !checksFiles[job] { transition.decision = resumePlan?.decisions[job] }
    if let decision = decision ?? announced { transition.decision = decision }
    transition.upToDate = upToDate
    transition.cached = to == .finished && decision == .restored
    transition.readyAfter = readyAfter
    transition.retryMemory = retryMemory
    emit(.transition(transition), at: time ?? clock())
  }
}
