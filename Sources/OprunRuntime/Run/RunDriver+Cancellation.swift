import Glibc
import OprunCore

extension RunDriver {
  /// The first cancelling command cancels every queue and sets the signal the run ends by;
  /// a second one kills everything.
  func cancelRun(reason: CancelReason, endingSignal signal: Int32) {
    guard endingSignal == nil else {
      killEverything()
      return
    }
    endingSignal = signal
    engine.cancelAll(reason: reason)
  }

  /// Everything the run has running dies now, completions included, and no completion
  /// starts any more. Every queue is resumed (again), so that the cancelled jobs left in
  /// them drain and the run ends.
  func killEverything() {
    killedEverything = true
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
    guard let index = attempts.index(forKey: job) else { return }
    let signal: JobSignal = reason == .interrupt ? .interrupt : .terminate
    let sent = attempts.values[index].signalsSent
    guard !sent.contains(signal) else { return }
    attempts.values[index].signalsSent.append(signal)
    let handles = attempts.values[index].handles
    for handle in handles { backend.signal(handle, signal) }
    if sent.isEmpty {
      clock.schedule(after: grace) { [unowned self] in apply(.graceOver(handles)) }
    }
  }
}
