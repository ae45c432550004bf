import OprunCore

/// Where jobs run: this machine's processes (``LocalBackend``), a cluster, or a fake in tests.
///
/// A backend only starts, signals and reports. It decides nothing about a run: which job
/// starts, how an attempt ends, what a cancellation means — all of that is the
/// ``RunDriver``'s. Everything happens on the driver's thread; a backend reports through
/// ``reportHandler`` only from its own event source (never from inside ``start(_:)`` or
/// ``signal(_:_:)``).
public protocol JobBackend: AnyObject {
  /// What the backend can do beyond starting, signalling and reporting: the run asks it,
  /// rather than telling backends apart.
  var capabilities: BackendCapabilities { get }

  /// Where reports go; the driver sets it before it starts anything.
  var reportHandler: ((BackendReport) -> Void)? { get set }

  /// Starts every command of `work` at once; one result per command, in order. A command
  /// that cannot start leaves nothing running.
  func start(_ work: WorkOrder) -> [Result<CommandHandle, StartFailure>]

  /// Sends `signal` to everything a started command is running (its process group). A
  /// handle whose command has exited still reaches what it left behind, until the group
  /// is gone; it never reaches anything started later.
  func signal(_ handle: CommandHandle, _ signal: JobSignal)

  /// Sends `signal` to everything the run has started and is still running: commands,
  /// completions, and what they left behind — but the commands in `spared` (and their
  /// groups). ``JobSignal/continue`` continues only what the last ``JobSignal/stop`` of
  /// everything stopped.
  func signalEverything(_ signal: JobSignal, sparing spared: [CommandHandle])

  /// The run is over: whatever the jobs left running gets the terminating signal, then a
  /// kill once `grace` seconds have passed. Returns when nothing is left, once the output
  /// it wrote has been reported (what a process out of the run's reach still writes is not
  /// waited for).
  func endRun(grace: Double)
}

/// What the driver asks a backend to run: the commands of one attempt of a job, or its
/// completion command.
public struct WorkOrder: Sendable {
  public var work: WorkKey
  /// Run concurrently; each by the shell.
  public var commands: [String]
  /// Set on top of the backend's own environment, later entries winning.
  public var environment: [EnvironmentEntry]
  public var workingDirectory: String
  public var qos: QualityOfService
  /// With the terminal, in the foreground, rather than with pipes.
  public var interactive: Bool
  /// The job's time limit in seconds, for a backend that can enforce it itself; the
  /// driver keeps its own timer either way.
  public var timeout: Double?
  /// What the attempt was given of the budget (its declared `resources`, its memory doubled
  /// after running out of it); empty when the job declares none. A backend that can holds
  /// the attempt to its memory and measures it apart (SPEC §12).
  public var needs = ResourceNeeds()
}

/// Which piece of work a command belongs to.
public struct WorkKey: Hashable, Sendable {
  public enum Purpose: Hashable, Sendable {
    /// The job's commands, on this attempt (1-based).
    case attempt(Int)
    /// The job's completion command.
    case completion
  }

  public var job: JobID
  public var purpose: Purpose

  public init(job: JobID, purpose: Purpose) {
    self.job = job
    self.purpose = purpose
  }

  /// The attempt's number; nil for a completion.
  public var attempt: Int? {
    if case .attempt(let number) = purpose { return number }
    return nil
  }
}

/// A started command, as its backend knows it. Opaque to the driver but for `id`.
public struct CommandHandle: Hashable, Sendable {
  /// What the events show: a pid here, a job id on a cluster.
  public var id: Int32
  /// Tells this command apart from a later one given the same id.
  public var serial: UInt64

  public init(id: Int32, serial: UInt64) {
    self.id = id
    self.serial = serial
  }
}

/// Why a command could not start, in words for the job's output.
public struct StartFailure: Error, Sendable, CustomStringConvertible {
  public var description: String
  /// The backend ran short of something its running commands give back as they end
  /// (descriptors, processes): the start may succeed once one has ended.
  public var mayPassLater: Bool

  public init(_ description: String, mayPassLater: Bool = false) {
    self.description = description
    self.mayPassLater = mayPassLater
  }
}

extension Result<CommandHandle, StartFailure> {
  /// A start that failed for want of something the run's running commands give back.
  var mayPassLater: Bool {
    if case .failure(let failure) = self { return failure.mayPassLater }
    return false
  }
}

extension JobBackend {
  /// Sends `signal` to everything the run has started and is still running.
  public func signalEverything(_ signal: JobSignal) {
    signalEverything(signal, sparing: [])
  }
}

/// What a backend observed.
public enum BackendReport: Sendable {
  /// Output of a command of `work`: whole lines, or a last partial line.
  case output(WorkKey, OutputStream, [UInt8])
  /// A command of `work` has exited (or its cluster job ended), having used what the
  /// backend measured; nil when it measures nothing.
  case exited(WorkKey, CommandHandle, Termination, ResourceUsage?)
  /// A ``SchedulingBackend`` saw `work` start running, as these commands (one per command
  /// of the job, in order): the job is executing.
  case began(WorkKey, [CommandHandle])
  /// A ``SchedulingBackend`` saw `work` end without ever running (withdrawn, or a
  /// dependency the cluster found could never be satisfied); `reason` in words.
  case endedUnstarted(WorkKey, reason: String)
}

/// A backend that is handed the whole run before it begins and schedules it itself, as a
/// cluster does: every job is submitted at once with its dependencies, and the backend then
/// reports what it observes — a job began (``BackendReport/began(_:_:)``), its commands
/// exited, or it ended without running (``BackendReport/endedUnstarted(_:reason:)``).
///
/// The driver still follows the engine: a job becomes ready when its dependencies have
/// finished, as observed; the engine's launch only marks it as awaited, and the backend's
/// `began` makes it executing. A job the engine finishes without running (skipped by its
/// `run-if`, cancelled while waiting) is ``withdraw(_:)``n; one cancelled while executing is
/// signalled as on any backend. A retry is another submission (``submitLater(_:)``), and so is
/// a dependent of a job that may be retried, once that job's last attempt is known.
/// ``start(_:)`` is still used for completion commands, which run where oprun runs.
extension SchedulingBackend {
  public var capabilities: BackendCapabilities { .cluster }

  public func submitLater(_ jobs: [PlannedJob]) -> [Result<Void, SubmissionFailure>] {
    jobs.map { submitLater($0) }
  }

  /// A cluster decides what runs at once.
  public func limit(_ works: [WorkKey], to maxConcurrent: Int) {}
}

public protocol SchedulingBackend: JobBackend {
  /// Submits every job of `plan`, in its order (every job after its dependencies); nothing
  /// is reported from inside. On failure, whatever was submitted is withdrawn again.
  func submit(_ plan: [PlannedJob]) -> Result<Void, SubmissionFailure>

  /// Submits one more job while the run goes on — a job that waited for its dependencies'
  /// last attempts, or another attempt of a job (`job.order`'s attempt) — after what was
  /// submitted before; it is followed as the others are. A refusal leaves the rest alone.
  func submitLater(_ job: PlannedJob) -> Result<Void, SubmissionFailure>

  /// Submits jobs that became free to go at the same moment, none waiting for another, as
  /// the one-job `submitLater` does each (the backend may group them); one result per job, in
  /// order.
  func submitLater(_ jobs: [PlannedJob]) -> [Result<Void, SubmissionFailure>]

  /// The run no longer wants `work` to run (cancelled or skipped before it began): the
  /// backend takes it back. What became of it is reported as usual; a job that had already
  /// ended is left alone.
  func withdraw(_ work: WorkKey)

  /// The run's queue of `works` was suspended: none of them is to begin until released (they
  /// have not begun; a job the backend saw begin or end is left alone).
  func hold(_ works: [WorkKey])

  /// Their queue was resumed: what ``hold(_:)`` held may begin again.
  func release(_ works: [WorkKey])

  /// Their queue's `max-concurrent` is now `maxConcurrent` (`oprun ctl limit`): what the
  /// backend itself limits by it follows (the jobs have not finished).
  func limit(_ works: [WorkKey], to maxConcurrent: Int)
}

/// One attempt of a job as a ``SchedulingBackend`` receives it.
public struct PlannedJob: Sendable {
  /// The attempt, as ``JobBackend/start(_:)`` would receive it.
  public var order: WorkOrder
  /// The job as the graph has it: name, dependencies, `run-if`, priority, QoS, timeout.
  public var job: JobNode
  /// Its priority band (the explicit priority, else its QoS's).
  public var band: Priority
  /// The dependencies it waits for on the backend, each by the last attempt submitted: those
  /// that will run in this run (a job `--resume` resumes will not) and were submitted (not one
  /// that finished before its turn came; none for a retry, whose dependencies have all ended).
  public var dependencies: [JobID]
  /// Submitted held: its queue is suspended (``SchedulingBackend/hold(_:)``).
  public var held = false
  /// Its place among its matrix job's instances in the run's graph, 0 first: the index a
  /// backend that runs a matrix as one array gives it. Nil for a job without a matrix, and for
  /// a retry (submitted on its own).
  public var instanceIndex: Int?
}

/// Why a run could not be submitted, in words a user can act on.
public struct SubmissionFailure: Error, Sendable, CustomStringConvertible {
  public var description: String

  public init(_ description: String) {
    self.description = description
  }
}

/// What the driver may do to running work, whatever the backend maps it to.
public enum JobSignal: Sendable, Equatable {
  /// Ctrl-C's signal, passed on (SIGINT).
  case interrupt
  /// Asked to end (SIGTERM).
  case terminate
  /// Ended now (SIGKILL).
  case kill
  /// Stopped with oprun (SIGSTOP), until continued.
  case stop
  case `continue`
}

/// What a backend can do, as it says itself.
public struct BackendCapabilities: Sendable, Equatable {
  /// The whole run is handed over before it begins (a cluster schedules it): jobs are
  /// submitted up front and awaited, not started one at a time. Such a backend is a
  /// ``SchedulingBackend``.
  public var takesWholeRun: Bool
  /// The jobs see this machine's files as oprun does, so files may decide whether a job
  /// runs (SPEC §10) and its outputs may be looked at when it ends.
  public var sharesFiles: Bool

  public init(takesWholeRun: Bool, sharesFiles: Bool) {
    self.takesWholeRun = takesWholeRun
    self.sharesFiles = sharesFiles
  }

  /// Processes on this machine.
  public static let thisMachine = BackendCapabilities(takesWholeRun: false, sharesFiles: true)
  /// A cluster that schedules the whole run on nodes of its own.
  public static let cluster = BackendCapabilities(takesWholeRun: true, sharesFiles: false)
}
