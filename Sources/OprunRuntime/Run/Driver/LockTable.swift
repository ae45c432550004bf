import OprunCore

/// The driver's part that holds the locks between runs (SPEC §10): the lock each job with
/// outputs holds from before its files are looked at until its record is written, and the
/// ready jobs that wait for theirs.
///
/// Invariants: `held[job]` is set from the moment the job's lock is taken until its
/// `finished` transition has been delivered (its record written, by the journal, which
/// observes first), and `heldCount` counts them, never more than `limit`; a job is in
/// `waiting` only while it is ready, waits for its files to decide, and holds no lock — so
/// no job holds a lock while it waits for one, and two runs cannot wait for each other;
/// `retryTimer` is set while some job waits.
struct LockTable {
  /// Seconds between two tries of the locks jobs wait for.
  static let retryInterval = 0.03

  let locks: JobLocks
  /// Locks held at once at most (each is an open descriptor): every slot of the queues and
  /// some to spare for jobs decided and waiting for one. Past it, a job waits for one of
  /// this run's own locks to be released.
  let limit: Int
  private var held: [JobLock?]
  private(set) var heldCount = 0
  /// Jobs waiting for their lock, in the order they began to.
  private(set) var waiting: [JobID] = []
  /// Whether each job's wait for another run was announced: once per job.
  private var announced: [Bool]
  /// The timer that tries the waiting jobs' locks again.
  var retryTimer: TimerID?
  /// Whether a lock that could not be had was warned about: once per run.
  var hasWarned = false

  init(locks: JobLocks, graph: JobGraph) {
    self.locks = locks
    let slots = graph.queues.reduce(0) { $0 + min($1.maxConcurrent, graph.jobs.count) }
    limit = min(slots, 1024) + 64
    held = Array(repeating: nil, count: graph.jobs.count)
    announced = Array(repeating: false, count: graph.jobs.count)
  }

  /// What trying a job's lock came to.
  enum Attempt: Equatable {
    /// Held now; `changedSince`: another run held it after this run read the records and
    /// began to look at files.
    case taken(changedSince: Bool)
    /// The job waits: another run holds the lock (`announce` the first time, with that
    /// oprun's `pid` if known), or this run holds as many as it may.
    case waits(announce: Bool, pid: Int32?)
    /// No lock can be had for it (the reason): it goes on without.
    case unavailable(String)
  }

  /// Tries the lock of `job`, named `name`, without waiting; a job that must wait is added
  /// to `waiting`.
  mutating func take(_ job: JobID, name: String) -> Attempt {
    guard heldCount < limit else {
      waiting.append(job)
      return .waits(announce: false, pid: nil)
    }
    switch locks.take(name) {
    case .taken(let lock, let changedSince):
      held[job] = lock
      heldCount += 1
      return .taken(changedSince: changedSince)
    case .heldElsewhere(let pid):
      waiting.append(job)
      defer { announced[job] = true }
      return .waits(announce: !announced[job], pid: pid)
    case .unavailable(let reason):
      return .unavailable(reason)
    }
  }

  /// The jobs waiting, in order, taken out of `waiting`: each is tried again, or dropped.
  mutating func takeWaiting() -> [JobID] {
    defer { waiting.removeAll(keepingCapacity: true) }
    return waiting
  }

  /// The job no longer waits (it was cancelled: it finishes without looking at its files).
  mutating func stopWaiting(_ job: JobID) {
    waiting.removeAll { $0 == job }
  }

  /// The job finished and its record is written: its lock, if it held one, is released.
  mutating func release(_ job: JobID) {
    guard let lock = held[job] else { return }
    lock.release()
    held[job] = nil
    heldCount -= 1
  }

  /// Whether the job holds its lock (tests).
  func holds(_ job: JobID) -> Bool { held[job] != nil }
}
