extension QueueEngine {
  /// The launched job's processes exist: ready → executing, with one pid per command.
  public func didStart(_ job: JobID, pids: [Int32]) {
    precondition(phase[job] == .launching, "didStart(\(job)) for a job that was not launched")
    let now = clock()
    phase[job] = .executing
    currentPids[job] = pids
    executingSince[job] = now
    attemptTimedOut[job] = false
    emitTransition(job, from: .ready, to: .executing, at: now, pids: pids)
  }

  /// The executor did not start a launched job because its cancelled flag went up in the
  /// meantime (a failure earlier in the same batch, under `on-failure: cancel-all`): it
  /// gives back its slot and finishes without executing, as a cancelled queued job does.
  public func didNotStart(_ job: JobID) {
    precondition(
      phase[job] == .launching && cancelReason[job] != nil,
      "didNotStart(\(job)) for a job not cancelled while launching")
    let queue = queue(of: job)
    queues[queue].running -= 1
    listQueue(queue)
    releaseConsole(job)
    finishWithoutExecuting(job)
  }

  /// Every process of the executing job has exited; `termination` is the one that decides.
  ///
  /// The outcome: cancelled when the flag is raised (whatever the status), timed out after
  /// ``timedOut(_:)``, else succeeded or failed by `termination`. A failed or timed-out
  /// attempt with retries left goes back to ready (executing → ready, attempt raised),
  /// unless `on-failure: stop` has fired and its `run-if` is `success`. Otherwise the job
  /// finishes, `on-failure` applies to a failure, and its dependents are released.
  public func didFinish(_ job: JobID, termination: Termination) {
    precondition(phase[job] == .executing, "didFinish(\(job)) for a job that was not executing")
    let now = clock()
    let queue = queue(of: job)
    queues[queue].running -= 1
    listQueue(queue)
    releaseConsole(job)
    terminations[job] = termination
    let duration = now - executingSince[job]
    let outcome = attemptOutcome(job, termination: termination)
    if (outcome == .failed || outcome == .timedOut) && mayRetry(job) {
      retry(job, after: termination, duration: duration, at: now)
    } else {
      finish(job, from: .executing, outcome: outcome, termination: termination, duration: duration, at: now)
    }
  }

  /// The executor's timer for the job's current attempt fired.
  ///
  /// Emits `cancelled` with reason `timeout` so that the executor signals the job; the
  /// cancelled flag itself stays down: the attempt finishes timed out, a failure, so retries
  /// and `on-failure` apply. Does nothing unless the job executes, uncancelled and not
  /// already timed out.
  public func timedOut(_ job: JobID) {
    guard phase[job] == .executing, cancelReason[job] == nil, !attemptTimedOut[job] else { return }
    attemptTimedOut[job] = true
    emit(.cancelled(job: job, reason: .timeout))
  }

  private func attemptOutcome(_ job: JobID, termination: Termination) -> Outcome {
    if cancelReason[job] != nil { return .cancelled }
    if attemptTimedOut[job] { return .timedOut }
    return termination.isSuccess ? .succeeded : .failed
  }

  private func mayRetry(_ job: JobID) -> Bool {
    let node = graph.jobs[job]
    guard attempts[job] <= node.retries, cancelReason[job] == nil else { return false }
    return !(stopTriggered && node.runIf == .success)
  }

  /// executing → ready for the next attempt; the transition carries how this one ended.
  private func retry(_ job: JobID, after termination: Termination, duration: Double, at time: Double) {
    attempts[job] += 1
    attemptTimedOut[job] = false
    currentPids[job] = []
    phase[job] = .ready
    emitTransition(job, from: .executing, to: .ready, at: time, termination: termination, duration: duration)
    enqueue(job)
  }
}
