import OprunCore

/// The driver's part that holds the locks between runs (SPEC §10): the lock each job with
/// outputs holds from before its files are looked at until its record is written, and the
/// ready jobs that wait for theirs.
///
/// Invariants: `held[job]` is set from the moment the job's lock is taken until its
/// `finished` transition has been delivered (its record written, by the journal, which
/// observes first), and `heldCount` counts them, never more than `limit`; a job waits
/// (`waits[job]`, and then it is listed in `waiting` or `waitingForRoom`) only while it is
/// ready, waits for its files to decide, and holds no lock — so no job holds a lock while it
/// waits for one, and two runs cannot wait for each other; a job that found no descriptor
/// left is listed in `waitingForDescriptor` and becomes eligible for room only when one of
/// this run's locks is released (a descriptor came back), never before; `waitingForOtherRuns`
/// counts the jobs that wait for another run, and `retryTimer` is set while it is not 0.
struct LockTable {
  /// Seconds between two tries of the locks jobs wait for, at first: the wait doubles with
  /// each try, up to ``longestRetryInterval``, and starts again when a lock is taken (another
  /// run's job that held one has ended, and others may soon).
  static let retryInterval = 0.03
  static let longestRetryInterval = 1.0

  let locks: JobLocks
  /// Locks held at once past the queues' slots: for jobs decided and waiting for a slot.
  static let spare = 64

  /// Locks held at once at most (each is an open descriptor, on top of those
  /// ``DescriptorBudget`` counts for commands, which counts these too): every slot of the
  /// queues and ``spare``. Past it, or when no descriptor is left to open one, a job waits
  /// for one of this run's own locks to be released.
  let limit: Int
  private var held: [JobLock?]
  private(set) var heldCount = 0
  /// What each job waits for, if anything.
  private var waits: [Wait]
  /// Jobs waiting for their lock, which another run holds, in the order they began to; one
  /// cancelled meanwhile stays listed until the next try, which passes over it.
  private var waiting: [JobID] = []
  /// How many jobs wait for a lock another run holds.
  private(set) var waitingForOtherRuns = 0
  /// Jobs waiting for one of this run's locks to be released (it holds `limit`, or has no
  /// descriptor left), in order, from `nextForRoom` on: each is tried as soon as there is
  /// room, not on the timer; one cancelled meanwhile is passed over.
  private var waitingForRoom: [JobID] = []
  private var nextForRoom = 0
  /// Jobs that found no descriptor left to open their lock file, in order: each waits for
  /// one of this run's locks to be released (which closes a descriptor), and then for room.
  private var waitingForDescriptor: [JobID] = []
  /// Whether each job's wait for another run was announced: once per job.
  private var announced: [Bool]
  /// The timer that tries the waiting jobs' locks again.
  var retryTimer: TimerID?
  /// Seconds until the next try, once it is set.
  private var retryDelay = retryInterval
  /// Each job's lock file, once its lock was tried: a job waiting is tried again and again.
  private var files: [String?]
  /// Whether a lock that could not be had was warned about: once per run.
  var hasWarned = false
  /// Whether a lock file that could not be written was warned about: once per run.
  var hasWarnedOfStamp = false

  private enum Wait { case none, otherRun, room, descriptor }

  init(locks: JobLocks, graph: JobGraph) {
    self.locks = locks
    let slots = graph.queues.reduce(0) { $0 + min($1.maxConcurrent, graph.jobs.count) }
    limit = min(slots, 1024) + Self.spare
    held = Array(repeating: nil, count: graph.jobs.count)
    waits = Array(repeating: .none, count: graph.jobs.count)
    announced = Array(repeating: false, count: graph.jobs.count)
    files = Array(repeating: nil, count: graph.jobs.count)
  }

  /// What trying a job's lock came to.
  enum Attempt: Equatable {
    /// Held now; `changedSince`: another run held it after this run read the records and
    /// began to look at files.
    case taken(changedSince: Bool)
    /// The job waits: another run holds the lock (`announce` the first time, with that
    /// oprun's `pid` if known); tried again on the timer.
    case waits(announce: Bool, pid: Int32?)
    /// The job waits until this run, which holds as many locks as it may, releases one.
    case waitsForRoom
    /// No lock can be had for it (the reason): it goes on without.
    case unavailable(String)
  }

  /// Tries the lock of `job`, named `name`, without waiting; a job that must wait is listed
  /// with what it waits for.
  mutating func take(_ job: JobID, name: String) -> Attempt {
    guard heldCount < limit else { return waitForRoom(job) }
    if files[job] == nil { files[job] = locks.file(of: name) }
    switch locks.take(name, file: files[job]!) {
    case .taken(let lock, let changedSince):
      held[job] = lock
      heldCount += 1
      retryDelay = Self.retryInterval
      return .taken(changedSince: changedSince)
    case .heldElsewhere(let pid):
      waits[job] = .otherRun
      waiting.append(job)
      waitingForOtherRuns += 1
      defer { announced[job] = true }
      return .waits(announce: !announced[job], pid: pid)
    case .outOfDescriptors where heldCount > 0:
      // Its own locks are closed as their jobs end: a descriptor comes back with the next
      // one, and not before (trying sooner would fail the same way, and never let the loop
      // close what frees one).
      waits[job] = .descriptor
      waitingForDescriptor.append(job)
      return .waitsForRoom
    case .outOfDescriptors:
      return .unavailable("no descriptor left to open its lock file")
    case .unavailable(let reason):
      return .unavailable(reason)
    }
  }

  private mutating func waitForRoom(_ job: JobID) -> Attempt {
    waits[job] = .room
    waitingForRoom.append(job)
    return .waitsForRoom
  }

  /// Seconds until the waiting jobs are tried again: each time twice the last, up to
  /// ``longestRetryInterval``, until a lock is taken.
  mutating func nextRetryDelay() -> Double {
    defer { retryDelay = min(retryDelay * 2, Self.longestRetryInterval) }
    return retryDelay
  }

  /// The jobs waiting for another run, in order, taken off the list: each is tried again.
  mutating func takeWaiting() -> [JobID] {
    let jobs = waiting.filter { waits[$0] == .otherRun }
    for job in jobs { waits[job] = .none }
    waiting.removeAll(keepingCapacity: true)
    waitingForOtherRuns = 0
    return jobs
  }

  /// The next job that waited for room, now that there is some; nil when there is none, or
  /// no room.
  mutating func nextWithRoom() -> JobID? {
    while heldCount < limit, nextForRoom < waitingForRoom.count {
      let job = waitingForRoom[nextForRoom]
      nextForRoom += 1
      if nextForRoom == waitingForRoom.count {
        waitingForRoom.removeAll(keepingCapacity: true)
        nextForRoom = 0
      }
      guard waits[job] == .room else { continue }
      waits[job] = .none
      return job
    }
    return nil
  }

  /// The job no longer waits (it was cancelled: it finishes without looking at its files).
  mutating func stopWaiting(_ job: JobID) {
    if waits[job] == .otherRun { waitingForOtherRuns -= 1 }
    waits[job] = .none
  }

  /// The job took its lock, but cannot be decided now: the lock is released (nothing is
  /// written, the job did not run) and the job waits for the timer, as for another run.
  mutating func giveBack(_ job: JobID) {
    release(job)
    waits[job] = .otherRun
    waiting.append(job)
    waitingForOtherRuns += 1
  }

  /// The job was found to run: its lock file says so (``JobLock/markRunning()``); nil when
  /// it does, else why it could not be written.
  func markRunning(_ job: JobID) -> String? {
    held[job]?.markRunning()
  }

  /// The job finished and its record is written: its lock, if it held one, is released, and
  /// the jobs that found no descriptor left wait for room again (this one's is closed). Nil,
  /// or why its lock file could not say it was released.
  @discardableResult
  mutating func release(_ job: JobID) -> String? {
    guard let lock = held[job] else { return nil }
    let failure = lock.release()
    held[job] = nil
    heldCount -= 1
    for waiter in waitingForDescriptor where waits[waiter] == .descriptor {
      waits[waiter] = .room
      waitingForRoom.append(waiter)
    }
    waitingForDescriptor.removeAll(keepingCapacity: true)
    return failure
  }

  /// Whether the job holds its lock (tests).
  func holds(_ job: JobID) -> Bool { held[job] != nil }
}
