/// The console: at most one `interactive: true` job executes at a time, whatever its queue
/// (as ninja's console pool of depth 1). An interactive job that its queue reaches while the
/// console is taken steps aside, keeping its band and sequence, and goes back to its queue
/// when the console is free; jobs behind it in its queue may start meanwhile.
extension QueueEngine {
  /// Whether `job` must wait for the console before it may start.
  func waitsForConsole(_ job: JobID) -> Bool {
    guard graph.jobs[job].interactive, cancelReason[job] == nil else { return false }
    if consoleHolder == nil { return false }
    consoleWaiters.append(job)
    return true
  }

  func takeConsole(_ job: JobID) {
    if graph.jobs[job].interactive { consoleHolder = job }
  }

  /// The console holder's attempt ended: the waiters go back to their queues.
  func releaseConsole(_ job: JobID) {
    guard consoleHolder == job else { return }
    consoleHolder = nil
    let waiters = consoleWaiters
    consoleWaiters.removeAll()
    for waiter in waiters where phase[waiter] == .ready { enqueue(waiter) }
  }

  /// Takes `job` off the console's waiting list; true when it was on it (and so is in no
  /// queue's heap: the caller puts it back).
  @discardableResult
  func stopWaitingForConsole(_ job: JobID) -> Bool {
    guard let index = consoleWaiters.firstIndex(of: job) else { return false }
    consoleWaiters.remove(at: index)
    return true
  }
}
