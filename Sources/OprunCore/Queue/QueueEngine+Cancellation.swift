extension QueueEngine {
  /// `Operation.cancel()`: raises the job's cancelled flag, which is never lowered.
  ///
  /// A pending job stops waiting for its dependencies and goes ready at once; a ready job
  /// stays in its queue, and one whose files are being looked at joins it without waiting
  /// for them. Either finishes, without executing, when its queue starts it (a
  /// suspended queue keeps it until resumed). A launched or executing job is only flagged:
  /// the executor, told by the `cancelled` event, signals it, and it finishes `cancelled`
  /// whatever its exit status. A finished job is left alone.
  @discardableResult
  public func cancel(_ job: JobID, reason: CancelReason) -> CancelResult {
    if phase[job] == .finished { return .alreadyFinished }
    if cancelReason[job] != nil { return .alreadyCancelled }
    raiseCancelledFlag(job, reason: reason)
    switch phase[job] {
    case .pending:
      phase[job] = .ready
      emitTransition(job, from: .pending, to: .ready)
      enqueue(job)
    case .checking:
      phase[job] = .ready
      enqueue(job)
    case .ready:
      if stopWaitingForConsole(job) || unparkForSteering(job) { enqueue(job) } else { markWorthVisiting(queue(of: job)) }
    case .launching, .executing, .finished:
      break
    }
    return .cancelled
  }

  /// `cancelAllOperations()` of `queues` (nil: every queue), in manifest order, then
  /// resumes those queues so that the run can drain — where oprun departs from Foundation.
  public func cancelAll(queues selected: [QueueID]? = nil, reason: CancelReason) {
    let chosen = selected ?? Array(graph.queues.indices)
    var isChosen = Array(repeating: false, count: graph.queues.count)
    for queue in chosen { isChosen[queue] = true }
    for job in graph.jobs.indices where isChosen[queue(of: job)] {
      cancel(job, reason: reason)
    }
    for queue in chosen {
      setSuspended(queue, false)
    }
  }

  func raiseCancelledFlag(_ job: JobID, reason: CancelReason) {
    cancelReason[job] = reason
    emit(.cancelled(job: job, reason: reason))
  }

  /// `on-failure` after a job's final attempt failed or timed out.
  ///
  /// `stop` cancels, once, every job that has not started, except those whose `run-if`
  /// (always, failure) makes them run after failures; `cancel-all` cancels everything.
  func applyFailurePolicy() {
    switch failurePolicy {
    case .continue:
      break
    case .stop:
      guard !stopTriggered else { return }
      stopTriggered = true
      for job in graph.jobs.indices
      where (phase[job] == .pending || phase[job] == .checking || phase[job] == .ready)
        && graph.jobs[job].runIf == .success {
        cancel(job, reason: .failurePolicy)
      }
    case .cancelAll:
      cancelAll(reason: .failurePolicy)
    }
  }
}
