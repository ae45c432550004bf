import OprunCore

/// Locks between runs (SPEC §10): a job with outputs takes its lock before its files are
/// looked at and keeps it until its record is written, so that two runs in one folder never
/// run it at once. Waiting costs the loop nothing: a timer tries the waiting jobs' locks
/// again, each time without blocking and twice as long after the last try (30 ms to 1 s,
/// from 30 ms again once a lock is taken), and a job stays ready meanwhile, out of its
/// queue, taking no slot. The state is the ``LockTable`` part's.
extension RunDriver {
  /// Whether the job's files may be looked at now: it needs no lock, took it, or cannot
  /// have one. False when it waits; it is tried again until it takes it or is cancelled.
  func takeLockBeforeCheck(of job: JobID) -> Bool {
    let node = graph.jobs[job]
    guard locks != nil, !node.outputs.isEmpty else { return true }
    switch locks!.take(job, name: node.name) {
    case .taken(let changedSince):
      // Another run held it since this one read the records and began to look at files:
      // what was read may be older than what that run left. Both are read again.
      guard changedSince else { return true }
      guard forgetEarlierLooks(at: job) else {
        // That run's journal cannot be opened now (no descriptor left): the record read
        // before must not decide the job. The lock is given back, and tried on the timer.
        locks!.giveBack(job)
        scheduleLockRetry()
        return false
      }
      return true
    case .waits(let announce, let pid):
      if announce { publish(.waitingForOtherRun(job: job, pid: pid)) }
      scheduleLockRetry()
      return false
    case .waitsForRoom:
      return false
    case .unavailable(let reason):
      if !locks!.hasWarned {
        locks!.hasWarned = true
        publish(
          .warning(
            "cannot lock '\(graph.reportedName(job: job))' against other runs in this folder: \(reason); "
              + "jobs whose lock cannot be had run without waiting for other runs"))
      }
      return true
    }
  }

  /// Tries again the locks jobs wait for; a job that takes it now is decided, one cancelled
  /// meanwhile is no longer waiting (it finishes in its queue without running).
  func retryLocks() {
    guard locks != nil else { return }
    locks!.retryTimer = nil
    for job in locks!.takeWaiting() where !engine.isCancelled(job) {
      checkFiles(of: job)
    }
  }

  /// The next job that waited for one of this run's locks to be released, if there is room
  /// now: its lock is tried at once. A job cancelled meanwhile is passed over. False when
  /// there was none to try.
  func checkNextJobWithRoom() -> Bool {
    guard locks != nil else { return false }
    while let job = locks!.nextWithRoom() {
      if engine.isCancelled(job) { continue }
      checkFiles(of: job)
      return true
    }
    return false
  }

  /// A cancelled job gives up waiting for its lock; the timer goes when nothing waits.
  func abandonLockWait(of job: JobID) {
    guard locks != nil else { return }
    locks!.stopWaiting(job)
    if locks!.waitingForOtherRuns == 0, let timer = locks!.retryTimer {
      clock.cancelTimer(timer)
      locks!.retryTimer = nil
    }
  }

  /// Warns, once per run, that a job's lock file could not say what its holder did
  /// (`failure`, when there is one): other runs will look at the job's files again.
  func warnOfLockFile(of job: JobID, failure: String?) {
    guard let failure, locks != nil, !locks!.hasWarnedOfStamp else { return }
    locks!.hasWarnedOfStamp = true
    take(
      .announce(
        .warning(
          "cannot write the lock file of '\(graph.reportedName(job: job))': \(failure); the next run in this folder "
            + "to take its lock looks at its files again")))
  }

  private func scheduleLockRetry() {
    guard locks!.retryTimer == nil else { return }
    locks!.retryTimer = clock.schedule(after: locks!.nextRetryDelay()) { [unowned self] in apply(.retryLocks) }
  }

  /// The job's record as another run may have left it, and its files as they are now; false
  /// when the record cannot be read now.
  private func forgetEarlierLooks(at job: JobID) -> Bool {
    guard files?.readRecordAgain(of: job, in: graph) ?? true else { return false }
    files?.tracking.checker.forgetEarlierLook(at: .inputs(of: graph.jobs[job], in: graph))
    files?.tracking.checker.forgetEarlierLook(at: .outputs(of: graph.jobs[job], in: graph))
    return true
  }
}
