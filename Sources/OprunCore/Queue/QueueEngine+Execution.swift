extension QueueEngine {
  /// The launched job's work has started: ready → executing. (What started it — processes,
  /// cluster jobs — is the runtime's business; the engine knows jobs, states and outcomes.)
  public func didStart(_ job: JobID) {
    precondition(phase[job] == .launching, "didStart(\(job)) for a job that was not launched")
    let now = clock()
    phase[job] = .executing
    if checksFiles[job] { breaksResumedChain[job] = true }
    executingSince[job] = now
    attemptTimedOut[job] = false
    emitTransition(job, from: .ready, to: .executing, at: now)
  }

  /// The executing job's attempt has ended, `succeeded` or not.
  ///
  /// The outcome: cancelled when the flag is raised (whatever the status), timed out after
  /// ``timedOut(_:)``, else succeeded or failed. A failed or timed-out
  /// attempt with retries left goes back to ready (executing → ready, attempt raised),
  /// unless `on-failure: stop` has fired and its `run-if` is `success`. Otherwise the job
  /// finishes, `on-failure` applies to a failure, and its dependents are released.
  /// `outOfMemory`: the attempt failed because it passed its memory limit; a retry of a
  /// job that declares memory then needs twice as much (never more than the budget), and
  /// its `executing → ready` transition says how much (`Transition.retryMemory`).
  public func didFinish(_ job: JobID, succeeded: Bool, outOfMemory: Bool = false) {
    precondition(phase[job] == .executing, "didFinish(\(job)) for a job that was not executing")
    let now = clock()
    let queue = queue(of: job)
    queues[queue].running -= 1
    markWorthVisiting(queue)
    releaseConsole(job)
    if ledger != nil { releaseResources(job) }
    let duration = now - executingSince[job]
    let outcome = attemptOutcome(job, succeeded: succeeded)
    if (outcome == .failed || outcome == .timedOut) && mayRetry(job) {
      let memory = outOfMemory && outcome == .failed ? doubleMemory(of: job) : nil
      retry(job, duration: duration, at: now, memory: memory)
    } else {
      finish(job, from: .executing, outcome: outcome, duration: duration, at: now)
    }
  }

  /// The launched job's work could not start at all: it finishes without executing —
  /// failed, or cancelled if its flag was raised meanwhile — and is not retried (what
  /// kept it from starting, a missing folder, would keep it from starting again).
  public func didNotStart(_ job: JobID) {
    precondition(phase[job] == .launching, "didNotStart(\(job)) for a job that was not launched")
    let queue = queue(of: job)
    queues[queue].running -= 1
    markWorthVisiting(queue)
    releaseConsole(job)
    if ledger != nil { releaseResources(job) }
    finish(job, from: .ready, outcome: cancelReason[job] != nil ? .cancelled : .failed, duration: 0, at: clock())
  }

  /// The job's current attempt ran out of time (the run driver keeps the timer).
  ///
  /// Emits `cancelled` with reason `timeout` so that the driver signals the job; the
  /// cancelled flag itself stays down: the attempt finishes timed out, a failure, so retries
  /// and `on-failure` apply. Does nothing unless the job executes, uncancelled and not
  /// already timed out.
  public func timedOut(_ job: JobID) {
    guard phase[job] == .executing, cancelReason[job] == nil, !attemptTimedOut[job] else { return }
    attemptTimedOut[job] = true
    emit(.cancelled(job: job, reason: .timeout))
  }

  private func attemptOutcome(_ job: JobID, succeeded: Bool) -> Outcome {
    if cancelReason[job] != nil { return .cancelled }
    if attemptTimedOut[job] { return .timedOut }
    return succeeded ? .succeeded : .failed
  }

  private func mayRetry(_ job: JobID) -> Bool {
    let node = graph.jobs[job]
    guard attempts[job] <= node.retries, cancelReason[job] == nil else { return false }
    return !(stopTriggered && node.runIf == .success)
  }

  /// executing → ready for the next attempt, which needs `memory` bytes when it was doubled.
  private func retry(_ job: JobID, duration: Double, at time: Double, memory: Int?) {
    attempts[job] += 1
    attemptTimedOut[job] = false
    phase[job] = .ready
    emitTransition(job, from: .executing, to: .ready, at: time, duration: duration, retryMemory: memory)
    enqueue(job)
  }
}
