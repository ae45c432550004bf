import OprunCore

/// `oprun ctl pause` and `continue` (SPEC §8): SIGSTOP and SIGCONT to an executing job's
/// commands. A paused job keeps its slot, and its time limit stops running while it is
/// paused: the timer is cancelled with the time left kept, and set again on continue.
extension RunDriver {
  /// Stops every command of the executing, unpaused `job`.
  func pause(_ job: JobID) {
    guard let attempt = attempts[job], attempt.pause == nil else { return }
    var timer: TimerID?
    attempts.update(job) { timer = $0.pause(at: clock.now()) }
    if let timer { clock.cancelTimer(timer) }
    publish(.paused(job: job))
    for handle in attempt.handles { backend.signal(handle, .stop) }
  }

  /// Continues every command of the paused `job`, and its time limit with the time it had left.
  func continuePaused(_ job: JobID) {
    guard let attempt = attempts[job], let pause = attempt.pause else { return }
    attempts.update(job) { $0.pause = nil }
    if let timeLeft = pause.timeLeft { scheduleTimeout(of: job, attempt: attempt.attempt, after: timeLeft) }
    publish(.continued(job: job))
    for handle in attempt.handles { backend.signal(handle, .continue) }
  }
}
