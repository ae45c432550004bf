/// An operation the driver is to start now: run every command of `job`.
///
/// From the moment ``QueueEngine/nextLaunch()`` returns it, the job holds a slot of its
/// queue and counts as started: it is no longer re-prioritised or cancelled as a queued job.
/// The driver answers at once with ``QueueEngine/didStart(_:)`` (a job none of whose
/// commands could start is started, then finished as failed), and with
/// ``QueueEngine/didFinish(_:succeeded:)`` when its attempt has ended.
public struct Launch: Equatable, Sendable {
  public var job: JobID
  /// 1 for the first run, raised for each retry; `OPRUN_ATTEMPT`.
  public var attempt: Int
  /// What this attempt was given of the budget (SPEC §12): its declared needs, its memory
  /// doubled after an attempt that ran out of it; `OPRUN_CPUS` and `OPRUN_MEMORY`. Empty
  /// when the run schedules no resources: then the job's declared needs are what it has.
  public var needs = ResourceNeeds()

  public init(job: JobID, attempt: Int) {
    self.job = job
    self.attempt = attempt
  }
}

/// What ``QueueEngine/cancel(_:reason:)`` did, as `oprun ctl cancel` reports it.
public enum CancelResult: Equatable, Sendable {
  /// The flag was raised now (and a `cancelled` event emitted).
  case cancelled
  /// The flag was already raised; nothing changed.
  case alreadyCancelled
  /// The job had finished; nothing changed, as `Operation.cancel()` after finish.
  case alreadyFinished
}

/// What ``QueueEngine/setPriority(_:_:)`` did: `queuePriority` only moves a waiting job.
public enum PriorityResult: Equatable, Sendable {
  /// The job waits in its new band, after every job already there.
  case changed
  /// The job has started (or holds a slot to start); nothing changed.
  case started
  /// The job has finished; nothing changed.
  case finished
}
