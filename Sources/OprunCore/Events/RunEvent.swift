/// A job's lifecycle state, as Foundation's `Operation` has them.
public enum JobState: String, Sendable, Comparable {
  case pending
  case ready
  case executing
  case finished

  private var order: Int {
    switch self {
    case .pending: 0
    case .ready: 1
    case .executing: 2
    case .finished: 3
    }
  }

  public static func < (a: JobState, b: JobState) -> Bool { a.order < b.order }
}

/// How a finished job ended.
public enum Outcome: String, Sendable, CaseIterable {
  case succeeded
  /// A command exited non-zero, or was killed by a signal oprun did not send.
  case failed
  /// The cancelled flag was raised before the job finished.
  case cancelled
  /// Cancelled because `run-if` did not hold (reason `dependency-failed`).
  case skipped
  case timedOut = "timed-out"
}

/// What a queue became when its `isSuspended` flag changed; the raw values are the words
/// of the event stream's `queue` event.
public enum QueueState: String, Sendable {
  /// It starts nothing new; what runs goes on.
  case suspended
  case resumed
}

/// Why a job's cancelled flag was raised.
public enum CancelReason: String, Sendable, CaseIterable {
  case interrupt
  case terminate
  case dependencyFailed = "dependency-failed"
  case failurePolicy = "failure-policy"
  case timeout
  case control
  /// Under `--watch`, its inputs, or a dependency's, changed while it was in the cycle (SPEC §13).
  case changed
}

/// How a job's process ended, as `waitpid` reports it.
public enum Termination: Hashable, Sendable {
  case exited(Int32)
  case signalled(Int32)
  /// The command never ran, for this reason (the failing call and its errno): it has no
  /// exit status and no signal, and none is made up for it.
  case notStarted(String)

  public var exitCode: Int32? {
    if case .exited(let code) = self { return code }
    return nil
  }

  public var signal: Int32? {
    if case .signalled(let signal) = self { return signal }
    return nil
  }

  public var isSuccess: Bool { self == .exited(0) }

  /// Why the command never ran; nil when it did.
  public var startFailure: String? {
    if case .notStarted(let reason) = self { return reason }
    return nil
  }
}

/// One lifecycle transition of one job.
public struct Transition: Sendable, Equatable {
  public var job: JobID
  public var queue: QueueID
  public var from: JobState
  public var to: JobState
  /// 1 for the first run; raised for each retry.
  public var attempt: Int
  /// On `executing`: one id per command, in the order of `commands` — a pid locally, a
  /// cluster job id elsewhere. Added by the run driver: the engine knows no processes.
  public var pids: [Int32]
  /// On `finished`.
  public var outcome: Outcome?
  /// On `finished`, and on `executing → ready` (a retry): how the command that decided the
  /// attempt ended; nil if none ran. Added by the run driver.
  public var termination: Termination?
  /// On `finished`: seconds from `executing` to `finished`; 0 when it never executed.
  public var duration: Double?
  /// On `finished`: the job was not run again because a journal showed it unchanged (§9).
  public var resumed: Bool
  /// On `finished`: the job did not run because its inputs and outputs showed it up to date (§10).
  public var upToDate = false
  /// On `finished`: its outputs were restored from the cache instead of running it (§14).
  public var cached = false
  /// On a cached `finished`: the seconds the job took when its outputs were stored.
  public var savedSeconds: Double?
  /// On `finished`, `failed`, and on `executing → ready` (a retry): the declared outputs its
  /// commands, which succeeded, did not leave (§10).
  public var missingOutputs: [String] = []
  /// On `finished`, `succeeded`, for a job that declares inputs or outputs: what its journal
  /// record holds of its files. Added by the run driver.
  public var files: FinishedFiles? {
    get { sharedFiles?.value }
    set { sharedFiles = newValue.map(Shared.init) }
  }
  /// On a job's first transition (from `pending`) under `--resume`: resumed, or why it runs.
  public var decision: RunDecision? {
    get { sharedDecision?.value }
    set { sharedDecision = newValue.map(Shared.init) }
  }
  // Behind a reference: most transitions carry neither, and a run's events wait in buffers
  // (the control channel keeps up to 65,536) where every transition is as large as its type.
  private var sharedFiles: Shared<FinishedFiles>?
  private var sharedDecision: Shared<RunDecision>?
  /// On `finished` of a job whose commands ran, and on `executing → ready` (a retry): the CPU
  /// time and peak memory its commands used — on a retry, that attempt's; on `finished`, every
  /// attempt's (CPU times summed, the largest peak). Added by the run driver.
  public var usage: ResourceUsage?
  /// On `pending → ready`: the dependency whose finishing made the job ready (the last of
  /// them to finish); nil for a job with none, or made ready by its cancellation.
  public var readyAfter: JobID?
  /// On `executing → ready` (a retry) after an attempt that ran out of memory: the bytes
  /// the next attempt is given, twice what the last one had (never more than the budget).
  public var retryMemory: Int?
  /// On a job's first transition (from `pending`), as a stream read back says it: the job's
  /// `description`. A run's writer takes it from the graph; the engine never sets it.
  public var description: String?
  /// On `finished`, `failed`, and on `executing → ready` (a retry): the attempt failed because
  /// the kernel killed it for passing this memory limit, in bytes (SPEC §12). Added by the run driver.
  public var outOfMemoryLimit: Int?

  /// The event stream's `reason` of an attempt that failed out of memory.
  public static let outOfMemoryReason = "out-of-memory"

  public init(
    job: JobID, queue: QueueID, from: JobState, to: JobState, attempt: Int = 1, pids: [Int32] = [],
    outcome: Outcome? = nil, termination: Termination? = nil, duration: Double? = nil, resumed: Bool = false
  ) {
    self.job = job
    self.queue = queue
    self.from = from
    self.to = to
    self.attempt = attempt
    self.pids = pids
    self.outcome = outcome
    self.termination = termination
    self.duration = duration
    self.resumed = resumed
  }
}

/// Which pipe a chunk of job output came through.
public enum OutputStream: String, Sendable {
  case stdout
  case stderr
}

/// Something that happened in a run: the one stream every view, the journal and other
/// backends read. The queue engine produces the job and queue events; the runtime adds
/// the rest. `time` is seconds since the run started, from the clock the producer was given.
public struct RunEvent: Sendable, Equatable {
  public var time: Double
  public var kind: Kind

  /// Paths a `watch-changed` event names at most; it counts them all.
  public static let watchedPathsNamed = 100

  /// Changed paths as a line says them: the first three, then how many more of `count`.
  public static func changedPathsText(_ paths: [String], count: Int) -> String {
    let shown = paths.prefix(3).joined(separator: ", ")
    return count > min(paths.count, 3) ? shown + " and \(count - min(paths.count, 3)) more" : shown
  }

  public init(time: Double, _ kind: Kind) {
    self.time = time
    self.kind = kind
  }

  public enum Kind: Sendable, Equatable {
    /// Queues as (name, max-concurrent) in order, the number of jobs, the run's id, and
    /// the control socket's path when there is one.
    case runStarted(queues: [QueueNode], jobs: Int, run: String, control: String?)
    case transition(Transition)
    /// A job is being cancelled, when it happens (not when the job finishes): its cancelled
    /// flag was raised — or, with reason `timeout`, its attempt ran out of time, and then
    /// the flag stays down and the attempt ends timed out (a failure, which may be retried).
    /// An executing job's processes are signalled in response.
    case cancelled(job: JobID, reason: CancelReason)
    /// The run is being cancelled by `signal` (Ctrl-C, SIGTERM), before any job is: the
    /// first time, its `jobs` unfinished jobs are cancelled and the executing ones, `waiting`,
    /// get up to `grace` seconds to exit; with `killing`, the signal came again and
    /// everything the run has running (`waiting`) is killed now.
    case cancelling(signal: Int32, jobs: Int, waiting: [JobID], grace: Double, killing: Bool)
    /// A queue was suspended or resumed.
    case queueState(queue: QueueID, state: QueueState)
    /// A queue's limit changed while running.
    case limit(queue: QueueID, maxConcurrent: Int)
    /// The run's resource budget changed while running (`oprun ctl budget`); memory in bytes.
    case budget(cpus: Int, memory: Int)
    /// A job's queue priority changed while it waited.
    case priority(job: JobID, priority: Priority)
    /// A request of the control channel (`oprun ctl`), as the run took it: before anything
    /// it causes. `args` as given; `error` says why it was refused, nil when `ok`.
    case control(command: String, args: [String], ok: Bool, peerUID: UInt32, peerPID: Int32, error: String?)
    /// A peer of another user was refused by the control channel; nothing of its request was read.
    case controlRefused(peerUID: UInt32, peerPID: Int32)
    /// A ready job waits for another oprun in the same folder that runs it now (SPEC §10):
    /// that run holds the job's lock, and `pid` is that oprun's, when its lock says. The job
    /// decides again whether it runs once the lock is free.
    case waitingForOtherRun(job: JobID, pid: Int32?)
    /// An executing job's processes were stopped (`oprun ctl pause`); it keeps its slot.
    case paused(job: JobID)
    /// A paused job's processes were continued.
    case continued(job: JobID)
    /// Output a job's command wrote: whole lines, or a last partial line when the pipe closed.
    case output(job: JobID, stream: OutputStream, text: [UInt8])
    /// A job's completion command started (`pid`) and, later, ended.
    case completionStarted(job: JobID, pid: Int32)
    case completion(job: JobID, termination: Termination)
    /// The cache (SPEC §14) held an entry for a job's key: its outputs, `bytes` in all, are restored.
    case cacheHit(job: JobID, key: String, bytes: Int)
    /// The cache held no usable entry for a job's key: it runs.
    case cacheMiss(job: JobID, key: String)
    /// A job's outputs, `bytes` in all, and its output were stored under its key.
    case cacheStored(job: JobID, key: String, bytes: Int)
    /// A warning meant for the user (`oprun: warning: …`).
    case warning(String)
    /// Under `--watch` (SPEC §13), the content of `count` watched files changed, the first
    /// `paths` of them named (at most ``RunEvent/watchedPathsNamed``, relative to the manifest's
    /// folder when under it): in a cycle, just before the jobs they make stale are cancelled.
    case watchChanged(paths: [String], count: Int)
    /// Under `--watch`, between cycles: `files` are watched, and a change will start the next.
    case watchWaiting(files: Int)
    case runFinished(exitCode: Int32, counts: [Outcome: Int])
  }
}
