import Glibc

/// A single-threaded, poll(2)-based event loop: readable descriptors, timers,
/// and (through `SignalTrap` and `watchProcess`) signals and child processes.
///
/// Every callback runs on the thread that calls `run(until:)`, one at a time,
/// so nothing it owns needs a lock; the loop is not `Sendable` and must stay
/// on one thread. Callbacks may watch, unwatch, schedule and cancel freely.
public final class EventLoop {
  private struct Watch {
    /// Distinguishes a watch from an earlier one on the same (reused) descriptor.
    var generation: UInt64
    var onReadable: () -> Void
  }

  private var watches: [Int32: Watch] = [:]
  private var nextGeneration: UInt64 = 0
  /// Invariant: when `pollSetIsCurrent`, `pollSet[i]` watches the descriptor of
  /// `watches` whose generation is `pollGenerations[i]`, one entry per watch.
  private var pollSet: [pollfd] = []
  private var pollGenerations: [UInt64] = []
  private var pollSetIsCurrent = true
  private var timers = TimerQueue()

  /// The one buffer every output reader reads into (64 KiB); the loop runs one
  /// callback at a time, so one buffer serves all.
  var readBuffer = [UInt8](repeating: 0, count: EventLoop.readSize)
  static let readSize = 65_536

  public init() {}

  /// The monotonic clock's reading in seconds (`MonotonicClock.now()`).
  public func now() -> Double { MonotonicClock.now() }

  /// Calls `onReadable` each time `fd` is readable (or at end of file, hang-up
  /// or error) until `unwatch(fd:)`. Watching a descriptor again replaces its
  /// callback. The loop never closes the descriptor.
  public func watch(fd: Int32, onReadable: @escaping () -> Void) {
    nextGeneration += 1
    watches[fd] = Watch(generation: nextGeneration, onReadable: onReadable)
    pollSetIsCurrent = false
  }

  /// Stops watching `fd`; call it before closing the descriptor.
  public func unwatch(fd: Int32) {
    if watches.removeValue(forKey: fd) != nil { pollSetIsCurrent = false }
  }

  /// Whether `fd` is being watched.
  public func isWatching(fd: Int32) -> Bool { watches[fd] != nil }

  /// Runs `action` once, `seconds` from now (on the monotonic clock).
  @discardableResult
  public func schedule(after seconds: Double, _ action: @escaping () -> Void) -> TimerID {
    timers.schedule(at: now() + max(0, seconds), action)
  }

  /// Cancels a timer that has not fired yet; does nothing otherwise.
  public func cancelTimer(_ timer: TimerID) {
    timers.cancel(timer)
  }

  /// Dispatches events until `done()` holds, checking it before each wait.
  ///
  /// Returns true when `done()` held, false when nothing was left that could
  /// ever change it (no watched descriptor, no timer) — rather than waiting forever.
  @discardableResult
  public func run(until done: () -> Bool) -> Bool {
    while !done() {
      guard !watches.isEmpty || !timers.isEmpty else { return false }
      waitAndDispatch()
    }
    return true
  }

  /// One turn: wait for a descriptor or the next timer, then run what is due.
  private func waitAndDispatch() {
    rebuildPollSetIfNeeded()
    let timeout = pollTimeout()
    let readyCount = pollSet.withUnsafeMutableBufferPointer { set in
      poll(set.baseAddress, nfds_t(set.count), timeout)
    }
    if readyCount < 0 {
      precondition(errno == EINTR || errno == EAGAIN, "poll: \(errorMessage(errno))")
    }
    fireDueTimers()
    if readyCount > 0 { dispatchReadable() }
  }

  private func rebuildPollSetIfNeeded() {
    guard !pollSetIsCurrent else { return }
    pollSet.removeAll(keepingCapacity: true)
    pollGenerations.removeAll(keepingCapacity: true)
    for (fd, watch) in watches {
      pollSet.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
      pollGenerations.append(watch.generation)
    }
    pollSetIsCurrent = true
  }

  /// Milliseconds until the next timer, rounded up so a wake-up is never early; -1 for none.
  private func pollTimeout() -> Int32 {
    guard let deadline = timers.nextDeadline() else { return -1 }
    let milliseconds = ((deadline - now()) * 1000).rounded(.up)
    return Int32(min(max(milliseconds, 0), Double(Int32.max)))
  }

  private func fireDueTimers() {
    for action in timers.popDue(at: now()) { action() }
  }

  /// Runs the callbacks of the descriptors poll found ready. The set is read
  /// first because callbacks change the watches; a watch replaced or removed
  /// meanwhile (its generation differs) is skipped.
  private func dispatchReadable() {
    var ready: [(fd: Int32, generation: UInt64, invalid: Bool)] = []
    for (index, entry) in pollSet.enumerated() where entry.revents != 0 {
      ready.append((entry.fd, pollGenerations[index], entry.revents & Int16(POLLNVAL) != 0))
    }
    for (fd, generation, invalid) in ready {
      guard let watch = watches[fd], watch.generation == generation else { continue }
      if invalid {
        // Closed without unwatch: dropping it keeps the loop from spinning on it.
        unwatch(fd: fd)
        continue
      }
      watch.onReadable()
    }
  }
}
