extension QueueEngine {
  /// `isSuspended`: a suspended queue starts nothing (not even cancelled jobs, which need a
  /// slot to finish); its executing jobs go on. Emits `queue` when the flag changes.
  public func setSuspended(_ queue: QueueID, _ suspended: Bool) {
    guard queues[queue].suspended != suspended else { return }
    queues[queue].suspended = suspended
    emit(.queueState(queue: queue, state: suspended ? .suspended : .resumed))
    if !suspended { markWorthVisiting(queue) }
  }

  /// `maxConcurrentOperationCount`, live: raising it lets ``nextLaunches()`` start more now;
  /// lowering it stops nothing that runs. Priority bands stay as the run started.
  /// Emits `limit`. `limit` must be at least 1.
  public func setMaxConcurrent(_ queue: QueueID, _ limit: Int) {
    precondition(limit >= 1, "a queue's max-concurrent must be at least 1")
    queues[queue].maxConcurrent = limit
    emit(.limit(queue: queue, maxConcurrent: limit))
    markWorthVisiting(queue)
  }

  /// `queuePriority` of a job that has not started: it moves to the end of its new band,
  /// as Foundation re-queues it. Emits `priority` when it changes anything.
  public func setPriority(_ job: JobID, _ priority: Priority) -> PriorityResult {
    let result = priorityChange(of: job)
    guard result == .changed else { return result }
    bands[job] = priority
    sequences[job] = nextSequence
    nextSequence += 1
    emit(.priority(job: job, priority: priority))
    // The old heap entry, if any, now carries a stale sequence and is skipped when it surfaces.
    if phase[job] == .ready {
      stopWaitingForConsole(job)
      _ = unparkForSteering(job)
      enqueue(job)
    }
    return .changed
  }

  /// What ``setPriority(_:_:)`` would do to `job` now, without doing it: `changed` while it
  /// waits (pending or ready), else why it would not.
  public func priorityChange(of job: JobID) -> PriorityResult {
    switch phase[job] {
    case .finished: .finished
    case .launching, .executing: .started
    case .pending, .checking, .ready: .changed
    }
  }
}
