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
  /// over — even if they exit first, whatever they left behind goes too.
  func signalCancelled(_ job: JobID, reason: CancelReason, attempt number: Int) {
    guard let index = attempts.index(forKey: job), attempts.values[index].attempt == number,
      !attempts.values[index].signalled
    else { return }
    attempts.values[index].signalled = true
    let handles = attempts.values[index].handles
    let signal: JobSignal = reason == .interrupt ? .interrupt : .terminate
    for handle in handles { backend.signal(handle, signal) }
    clock.schedule(after: grace) { [unowned self] in apply(.graceOver(handles)) }
  }
}
