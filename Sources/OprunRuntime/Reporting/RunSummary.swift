import OprunCore

/// What a run came to, computed from its events alone so that it can be checked without
/// rendering it: counts per outcome, every finished job, failures with their last lines of
/// output, wall time and exit status.
public struct RunSummary: Sendable, Equatable {
  /// How one job finished.
  public struct JobResult: Sendable, Equatable {
    public var job: JobID
    public var outcome: Outcome
    /// How the command that decided the outcome ended; nil when none ran.
    public var termination: Termination?
    /// Seconds from executing to finished; 0 when it never executed.
    public var duration: Double
    public var attempt: Int
    /// The reason its cancelled flag was first raised, when it was.
    public var cancelReason: CancelReason?
    public var resumed: Bool
    /// Its files showed it up to date: it did not run (SPEC §10).
    public var upToDate = false
    /// Its outputs were restored from the cache instead (SPEC §14), saving this many seconds.
    public var savedByCache: Double?
    /// The declared outputs its succeeding commands did not leave.
    public var missingOutputs: [String] = []
    /// The memory limit (bytes) its last attempt passed, failing out of memory (SPEC §12).
    public var outOfMemoryLimit: Int?
    /// Whether it ever reached executing.
    public var executed: Bool
    /// Seconds since the run started.
    public var finishedAt: Double
    /// What its commands used, every attempt together; nil when none ran or nothing was measured.
    public var usage: ResourceUsage?

    /// Whether the job counts as a failure: it failed or timed out.
    public var isFailure: Bool { outcome == .failed || outcome == .timedOut }
  }

  /// The number of jobs in the run.
  public var jobCount: Int
  /// Every outcome, with 0 for those that did not occur.
  public private(set) var counts: [Outcome: Int]
  /// Finished jobs, in the order they finished.
  public private(set) var results: [JobResult] = []
  /// Jobs `--resume` did not run again.
  public private(set) var resumedCount = 0
  /// Jobs their files showed up to date.
  public private(set) var upToDateCount = 0
  /// Jobs whose outputs were restored from the cache, and the seconds their runs took when stored.
  public private(set) var restoredCount = 0
  public private(set) var restoredSeconds = 0.0
  /// The last lines of output of every failed or timed-out job.
  public var failureTails: [JobID: OutputTail] { tails.failures }
  /// Seconds from start to `run-finished`; nil until the run has finished.
  public private(set) var wallTime: Double?
  /// The run's exit status; nil until the run has finished.
  public private(set) var exitCode: Int32?

  private var cancelReasons: [JobID: CancelReason] = [:]
  private var executedJobs: Set<JobID> = []
  private var tails: FailureTails

  /// An empty summary for a run of `jobCount` jobs, keeping `tailCapacity` lines of output
  /// for each failure.
  public init(jobCount: Int, tailCapacity: Int = 10) {
    self.jobCount = jobCount
    tails = FailureTails(capacity: tailCapacity)
    counts = Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0, 0) })
  }

  /// The summary of `events`.
  public init(jobCount: Int, events: some Sequence<RunEvent>, tailCapacity: Int = 10) {
    self.init(jobCount: jobCount, tailCapacity: tailCapacity)
    for event in events { record(event) }
  }

  /// The jobs that finished cancelled because `oprun ctl` cancelled them (SPEC §8).
  public var cancelledByControl: Int {
    results.count { $0.outcome == .cancelled && $0.cancelReason == .control }
  }

  /// The failed and timed-out jobs, in the order they finished.
  public var failures: [JobResult] { results.filter(\.isFailure) }

  /// The `limit` longest-running jobs that executed, longest first; ties in manifest order.
  public func slowest(_ limit: Int = 5) -> [JobResult] {
    first(limit, of: \.executed) { ($0.duration, -$0.job) > ($1.duration, -$1.job) }
  }

  /// A peak above which a run names its heaviest jobs: below it, memory is not worth a line.
  public static let notableMemory = 100 << 20

  /// The `limit` jobs with the largest peak memory, largest first (ties in manifest order),
  /// when one of them used more than ``notableMemory``; empty otherwise.
  public func heaviest(_ limit: Int = 3) -> [JobResult] {
    let heaviest = first(
      limit, of: { $0.usage != nil }, by: { ($0.usage!.peakMemory, -$0.job) > ($1.usage!.peakMemory, -$1.job) })
    guard let peak = heaviest.first?.usage?.peakMemory, peak > Self.notableMemory else { return [] }
    return heaviest
  }

  /// The first `limit` of the results `isIncluded` keeps, in the order `isBefore` gives, found
  /// in one pass: a run of 100,000 jobs does not copy its results to sort them.
  private func first(
    _ limit: Int, of isIncluded: (JobResult) -> Bool, by isBefore: (JobResult, JobResult) -> Bool
  ) -> [JobResult] {
    var chosen: [JobResult] = []
    guard limit > 0 else { return chosen }
    for result in results where isIncluded(result) {
      if chosen.count == limit {
        guard isBefore(result, chosen[limit - 1]) else { continue }
        chosen.removeLast()
      }
      chosen.insert(result, at: chosen.firstIndex { isBefore(result, $0) } ?? chosen.count)
    }
    return chosen
  }

  /// Takes `event` into account.
  public mutating func record(_ event: RunEvent) {
    switch event.kind {
    case .runStarted(_, let jobs, _, _):
      jobCount = jobs
      results.reserveCapacity(jobs)
    case .transition(let transition):
      record(transition, at: event.time)
    case .cancelled(let job, let reason):
      if cancelReasons[job] == nil { cancelReasons[job] = reason }
    case .output(let job, _, let text):
      tails.record(text, of: job)
    case .runFinished(let exitCode, _):
      wallTime = event.time
      self.exitCode = exitCode
    case .queueState, .limit, .budget, .priority, .completionStarted, .completion, .warning, .control, .controlRefused, .paused,
      .continued, .cancelling, .waitingForOtherRun, .watchChanged, .watchWaiting, .cacheHit, .cacheMiss, .cacheStored:
      break
    }
  }

  private mutating func record(_ transition: Transition, at time: Double) {
    if transition.to == .executing { executedJobs.insert(transition.job) }
    guard transition.to == .finished, let outcome = transition.outcome else { return }
    let job = transition.job
    results.append(
      JobResult(
        job: job, outcome: outcome, termination: transition.termination, duration: transition.duration ?? 0,
        attempt: transition.attempt, cancelReason: cancelReasons[job], resumed: transition.resumed,
        executed: executedJobs.contains(job), finishedAt: time))
    results[results.count - 1].upToDate = transition.upToDate
    if transition.cached { results[results.count - 1].savedByCache = transition.savedSeconds ?? 0 }
    results[results.count - 1].missingOutputs = transition.missingOutputs
    results[results.count - 1].outOfMemoryLimit = transition.outOfMemoryLimit
    results[results.count - 1].usage = transition.usage
    counts[outcome, default: 0] += 1
    if transition.resumed { resumedCount += 1 }
    if transition.upToDate { upToDateCount += 1 }
    if transition.cached {
      restoredCount += 1
      restoredSeconds += transition.savedSeconds ?? 0
    }
    tails.finish(job, outcome: outcome)
  }
}
