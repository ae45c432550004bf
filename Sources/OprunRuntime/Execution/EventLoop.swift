import Glibc

/// A single-threaded, poll(2)-based event loop: readable and writable descriptors,
/// timers, and (through `SignalTrap` and `watchProcess`) signals and child processes.
///
/// Every callback runs on the thread that calls `run(until:)`, one at a time,
/// so nothing it owns needs a lock; the loop is not `Sendable` and must stay
/// on one thread. Callbacks may watch, unwatch, schedule and cancel freely.
///
/// Back-pressure: while output is held back (`holdBackOutput()`), read watches
/// of class `.jobOutput` are neither polled nor dispatched, so a job writing
/// faster than oprun's output is read blocks in its own `write`; every other
/// watch and every timer is served as usual.
public final class EventLoop {
  /// Which read watches holding back output pauses.
  public enum ReadClass: Sendable {
    /// Always served: the signal self-pipe, pidfds, control sockets.
    case control
    /// A job's output pipe: paused while output is held back.
    case jobOutput
  }

  private struct Watch {
    /// Distinguishes a watch from an earlier one on the same (reused) descriptor.
    var generation: UInt64
    var readClass: ReadClass
    var callback: () -> Void
  }

  private var readWatches: [Int32: Watch] = [:]
  private var writeWatches: [Int32: Watch] = [:]
  private var nextGeneration: UInt64 = 0
  /// Invariant: `holdCount` is the number of `holdBackOutput()` calls not yet released.
  private var holdCount = 0
  /// Invariant: when `pollSetIsCurrent`, `pollSet[i]` polls the watch whose generation is
  /// `pollGenerations[i]` (in `writeWatches` when `POLLOUT` is asked, else `readWatches`),
  /// one entry per watch served now: a held-back watch has none.
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
  /// or error) until `unwatch(fd:)`; a `.jobOutput` watch not while output is
  /// held back. Watching a descriptor again replaces its callback. The loop
  /// never closes the descriptor.
  public func watch(fd: Int32, _ readClass: ReadClass = .control, onReadable: @escaping () -> Void) {
    readWatches[fd] = makeWatch(readClass, onReadable)
  }

  /// Stops watching `fd` for reading; call it before closing the descriptor.
  public func unwatch(fd: Int32) {
    if readWatches.removeValue(forKey: fd) != nil { pollSetIsCurrent = false }
  }

  /// Whether `fd` is being watched for reading.
  public func isWatching(fd: Int32) -> Bool { readWatches[fd] != nil }

  /// Calls `onWritable` each time `fd` can be written (or has an error or hang-up)
  /// until `unwatchWritable(fd:)`; never held back. Independent of a read watch
  /// on the same descriptor. The loop never closes the descriptor.
  public func watchWritable(fd: Int32, onWritable: @escaping () -> Void) {
    writeWatches[fd] = makeWatch(.control, onWritable)
  }

  /// Stops watching `fd` for writing; call it before closing the descriptor.
  public func unwatchWritable(fd: Int32) {
    if writeWatches.removeValue(forKey: fd) != nil { pollSetIsCurrent = false }
  }

  /// Pauses every `.jobOutput` read watch until as many `releaseOutput()` calls
  /// as there were holds: each congested output holds once.
  public func holdBackOutput() {
    holdCount += 1
    if holdCount == 1 { pollSetIsCurrent = false }
  }

  /// Releases one `holdBackOutput()`.
  public func releaseOutput() {
    precondition(holdCount > 0, "releaseOutput without holdBackOutput")
    holdCount -= 1
    if holdCount == 0 { pollSetIsCurrent = false }
  }

  /// Whether `.jobOutput` read watches are paused now.
  public var isHoldingBackOutput: Bool { holdCount > 0 }

  private func makeWatch(_ readClass: ReadClass, _ callback: @escaping () -> Void) -> Watch {
    nextGeneration += 1
    pollSetIsCurrent = false
    return Watch(generation: nextGeneration, readClass: readClass, callback: callback)
  }

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
  /// ever change it (no descriptor served, no timer) — rather than waiting forever.
  @discardableResult
  public func run(until done: () -> Bool) -> Bool {
    while !done() {
      rebuildPollSetIfNeeded()
      guard !pollSet.isEmpty || !timers.isEmpty else { return false }
      waitAndDispatch()
    }
    return true
  }

  /// One turn: wait for a descriptor or the next timer, then run what is due.
  private func waitAndDispatch() {
    let timeout = pollTimeout()
    let readyCount = pollSet.withUnsafeMutableBufferPointer { set in
      poll(set.baseAddress, nfds_t(set.count), timeout)
    }
    if readyCount < 0 {
      precondition(errno == EINTR || errno == EAGAIN, "poll: \(errorMessage(errno))")
    }
    fireDueTimers()
    if readyCount > 0 { dispatchReady() }
  }

  private func rebuildPollSetIfNeeded() {
    guard !pollSetIsCurrent else { return }
    pollSet.removeAll(keepingCapacity: true)
    pollGenerations.removeAll(keepingCapacity: true)
    for (fd, watch) in readWatches where !isHeldBack(watch) {
      pollSet.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
      pollGenerations.append(watch.generation)
    }
    for (fd, watch) in writeWatches {
      pollSet.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0))
      pollGenerations.append(watch.generation)
    }
    pollSetIsCurrent = true
  }

  private func isHeldBack(_ watch: Watch) -> Bool {
    watch.readClass == .jobOutput && holdCount > 0
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
  /// meanwhile (its generation differs), or held back meanwhile, is skipped.
  private func dispatchReady() {
    var ready: [(fd: Int32, generation: UInt64, writable: Bool, invalid: Bool)] = []
    for (index, entry) in pollSet.enumerated() where entry.revents != 0 {
      let writable = entry.events == Int16(POLLOUT)
      ready.append((entry.fd, pollGenerations[index], writable, entry.revents & Int16(POLLNVAL) != 0))
    }
    for (fd, generation, writable, invalid) in ready {
      guard let watch = writable ? writeWatches[fd] : readWatches[fd], watch.generation == generation,
        !isHeldBack(watch)
      else { continue }
      if invalid {
        // Closed without unwatch: dropping it keeps the loop from spinning on it.
        if writable { unwatchWritable(fd: fd) } else { unwatch(fd: fd) }
        continue
      }
      watch.callback()
    }
  }
}
