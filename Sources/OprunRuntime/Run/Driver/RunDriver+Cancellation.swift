import Glibc
import OprunCore

extension RunDriver {
  /// The first cancelling command cancels every queue and sets the signal the run ends by;
  /// a second one kills everything.
  /// Each is announced first (`cancelling`), so that the user reads what happens and what
  /// a second one would do before the jobs' own lines.
  func cancelRun(reason: CancelReason, endingSignal signal: Int32) {
    let action = lifecycle.cancel(endingSignal: signal)
    if lifecycle.isInProgress {
      let finished = engine.counts.values.reduce(0, +)
      publish(
        .cancelling(
          signal: signal, jobs: graph.jobs.count - finished, waiting: attempts.runningJobs, grace: grace,
          killing: action == .killEverything))
    }
    switch action {
    case .cancelQueues: engine.cancelAll(reason: reason)
    case .killEverything: killEverything()
    }
  }

  /// `jobs` and everything that depends on them are cancelled, Foundation's way (one
  /// `cancel` each); a job already finished stays as it ended.
  func cancelChanged(_ jobs: [JobID]) {
    var stale = Set<JobID>()
    var next = jobs
    while let job = next.popLast() {
      guard stale.insert(job).inserted else { continue }
      next += graph.jobs[job].dependents
    }
    for job in stale.sorted() { _ = engine.cancel(job, reason: .changed) }
  }

  /// Everything the run has running dies now, completions included, and no completion
  /// starts any more. Every queue is resumed (again), so that the cancelled jobs left in
  /// them drain and the run ends.
  private func killEverything() {
    backend.signalEverything(.kill)
    for queue in graph.queues.indices { engine.setSuspended(queue, false) }
  }

  /// The engine cancelled `job` (or timed out its attempt) while `attempt` executed: its
  /// commands get the signal that matches the reason, and a kill once the grace period is
  /// over — even if they exit first, whatever they left behind goes too. A later
  /// cancellation with another signal (Ctrl-C after a timeout) sends that one as well; the
  /// kill stays due when the first grace period ends.
  ///
  /// A paused job is continued first (a `continued` event), so that it can act on the signal.
  func signalCancelled(_ job: JobID, reason: CancelReason, attempt number: Int) {
    guard attempts[job]?.attempt == number else { return }
    continuePaused(job)
    guard let attempt = attempts[job] else { return }
    let signal: JobSignal = reason == .interrupt ? .interrupt : .terminate
    guard !attempt.signalsSent.contains(signal) else { return }
    attempts.update(job) { $0.signalsSent.append(signal) }
    for handle in attempt.handles { backend.signal(handle, signal) }
    if attempt.signalsSent.isEmpty {
      clock.schedule(after: grace) { [unowned self] in apply(.graceOver(attempt.handles)) }
    }
  }
}
