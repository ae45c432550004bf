import Glibc
import OprunCore

/// Drives one run, whatever runs its jobs: the one place a run advances.
///
/// The driver owns the queue engine, the run's timers and its event bus. Everything that
/// changes a run arrives through one of two doors, both on the driver's thread:
/// ``apply(_:)`` for commands (signals, timeouts, failure handling, control requests) and
/// ``report(_:)`` for what the backend observed (output, exits). Each is queued as a step
/// and steps run one at a time, in order: an event is delivered to every observer before
/// anything it causes happens (what the driver does about it — signalling a cancelled job,
/// starting a completion — is queued as a further step), and once no step is left the
/// driver starts every job the engine lets start, one at a time, so that whatever one
/// launch changes is seen by the next. No caller ever starts jobs by hand.
///
/// A typical run: ``start(run:control:)``, then the backend's reports and the commands of
/// signals and timers until ``isFinished``, then ``finish()``.
public final class RunDriver {
  public let graph: JobGraph
  let engine: QueueEngine
  let backend: any JobBackend
  /// The backend, when it is handed the whole run up front (a cluster); see `RunDriver+Scheduling`.
  let scheduler: (any SchedulingBackend)?
  let clock: any RunClock
  let bus = EventBus()
  /// Seconds between the signal that cancels an executing attempt and the kill.
  let grace: Double
  /// The clock's reading when the run began: events are stamped with seconds since then.
  let startTime: Double

  /// Attempts whose commands have started and not all exited, by job.
  var attempts: [JobID: RunningAttempt] = [:]
  /// Completion commands that have started and not exited, by job.
  var completions: [JobID: CommandHandle] = [:]
  /// On a scheduling backend: launched jobs, by their attempt, that the backend has not yet
  /// seen begin or end.
  var awaited: [JobID: Int] = [:]
  /// On a scheduling backend: what it reported about jobs the engine had not launched yet, in order.
  var reportsBeforeLaunch: [JobID: [BackendReport]] = [:]
  /// Launches whose start ran short of resources, each holding its slot until something
  /// of the run ends and they are tried again.
  var launchesWaitingForResources: [Launch] = []
  /// Something of the run ended since the waiting launches were last tried.
  var mayRetryWaitingLaunches = false
  /// Set while the engine hears how an attempt ended: the termination its transition carries.
  var endingAttempt: (job: JobID, termination: Termination)?
  /// The signal the run ends by, from the first ``RunCommand/cancelRun(reason:endingSignal:)``.
  public internal(set) var endingSignal: Int32?
  /// A second cancelling command killed everything: no completion starts any more.
  var killedEverything = false
  /// Which run this is; set when it begins.
  public internal(set) var identity: RunIdentity?
  /// `run-finished` has been announced: nothing more is published, control requests are refused.
  var hasAnnouncedEnd = false
  /// Every job's id by its name, for control requests; built at the first one.
  lazy var jobsByName: [String: JobID] = Dictionary(
    graph.jobs.map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
  /// What each name a control request may give means: a matrix job's plain name is its instances.
  lazy var jobNames = JobNameIndex(graph)

  /// Set when files decide whether jobs that declare inputs or outputs run (SPEC §10).
  let fileTracking: FileTracking?
  /// Each job's fingerprint, for its files' record and for its dependents' (SPEC §9, §10).
  lazy var fingerprints = graph.fingerprints()
  /// What each finished job means to its dependents, by job.
  lazy var results = [JobResult?](repeating: nil, count: graph.jobs.count)
  /// Jobs whose files are being looked at or will be recorded, by job.
  var fileChecks: [JobID: FileCheckInProgress] = [:]
  /// What the finished transition of a job about to finish carries of its files.
  var finishedFiles: [JobID: FinishedFiles] = [:]
  /// The outputs a job's attempt left missing, for its finished transition.
  var missingOutputs: [JobID: [String]] = [:]

  /// Steps not yet taken, in order, from `nextStep` on.
  private var steps: [Step] = []
  private var nextStep = 0
  private var isTakingSteps = false

  /// A run of `graph` on `backend`, timed by `clock`; `failurePolicy` is `on-failure` as
  /// the manifest or the command line set it; `resumePlan` is `--resume`'s decision;
  /// `criticalPath` orders equals in priority under `--schedule critical-path` (nil: FIFO);
  /// `fileTracking` lets files decide whether a job that declares inputs or outputs runs
  /// (not on a scheduling backend, which is handed every job up front).
  public init(
    graph: JobGraph, failurePolicy: FailurePolicy, grace: Double, resumePlan: ResumePlan? = nil,
    criticalPath: CriticalPath? = nil, fileTracking: FileTracking? = nil, backend: any JobBackend,
    clock: any RunClock
  ) {
    self.graph = graph
    self.backend = backend
    scheduler = backend as? any SchedulingBackend
    self.fileTracking = scheduler == nil && graph.jobs.contains(where: \.tracksFiles) ? fileTracking : nil
    self.clock = clock
    self.grace = grace
    let startTime = clock.now()
    self.startTime = startTime
    engine = QueueEngine(
      graph: graph, failurePolicy: failurePolicy, resumePlan: resumePlan, criticalPath: criticalPath,
      checkingFiles: self.fileTracking != nil, clock: { clock.now() - startTime })
    engine.addObserver(EngineListener(driver: self))
    backend.reportHandler = { [unowned self] report in self.report(report) }
  }

  /// Delivers every event of the run to `observer`, after the observers added before it.
  public func addObserver(_ observer: any RunObserver) {
    bus.add(observer)
  }

  /// Begins the run: announces it as `run` (with its control socket, if any), gives the
  /// `warnings` found while preparing it, and starts every job that can start.
  public func start(run: RunIdentity, control: String? = nil, warnings: [String] = []) {
    take(.begin(run: run, control: control, warnings: warnings))
  }

  /// Begins a run known only by its id (tests): the manifest's path as the graph has it,
  /// started at Unix time 0, by this process.
  public func start(run: String, control: String? = nil) {
    start(run: RunIdentity(id: run, manifestPath: graph.manifest.path, started: 0, pid: getpid()), control: control)
  }

  /// Changes the run: the one door for signals, timers and control requests.
  public func apply(_ command: RunCommand) {
    take(.command(command))
  }

  /// What the backend observed.
  public func report(_ report: BackendReport) {
    take(.report(report))
  }

  /// Tells the user something about the run (`oprun: warning: …`).
  public func warn(_ message: String) {
    take(.announce(.warning(message)))
  }

  /// Every job has finished, and every command and completion of the run has exited.
  public var isFinished: Bool { engine.isDrained && attempts.isEmpty && completions.isEmpty }

  /// Ends the run once it ``isFinished``: what the jobs left running is ended, the last
  /// event is delivered, and the exit status returned (128 + the signal the run ends by,
  /// when it ends by one).
  public func finish() -> Int32 {
    backend.endRun(grace: grace)
    let status = endingSignal.map(ExitStatus.signalled) ?? engine.exitStatus()
    take(.announce(.runFinished(exitCode: status, counts: engine.counts)))
    hasAnnouncedEnd = true
    return status
  }

  /// Seconds since the run began, for stamping events.
  var runTime: Double { clock.now() - startTime }

  /// Stamps `kind` with the run's time and delivers it; only from inside a step.
  func publish(_ kind: RunEvent.Kind) {
    bus.deliver(RunEvent(time: runTime, kind))
  }

  /// Queues `step` for its turn. Steps that come in while one is being taken — from an
  /// observer, or the engine's events — wait until it is done.
  func take(_ step: Step) {
    steps.append(step)
    guard !isTakingSteps else { return }
    isTakingSteps = true
    defer { isTakingSteps = false }
    while true {
      if nextStep < steps.count {
        let step = steps[nextStep]
        nextStep += 1
        perform(step)
        continue
      }
      steps.removeAll(keepingCapacity: true)
      nextStep = 0
      if mayRetryWaitingLaunches {
        mayRetryWaitingLaunches = false
        retryLaunchesWaitingForResources()
        continue
      }
      if let job = engine.nextCheck() {
        checkFiles(of: job)
        continue
      }
      guard let launch = engine.nextLaunch() else {
        // Jobs the engine finished on the way (cancelled or skipped, without running) may
        // have queued steps of their own: their completions. Take them now.
        if steps.isEmpty { return }
        continue
      }
      start(launch)
    }
  }

  private func perform(_ step: Step) {
    switch step {
    case .begin(let run, let control, let warnings):
      identity = run
      publish(.runStarted(queues: graph.queues, jobs: graph.jobs.count, run: run.id, control: control))
      for warning in warnings { publish(.warning(warning)) }
      engine.start()
    case .command(let command):
      perform(command)
    case .report(let report):
      receive(report)
    case .signalCancelled(let job, let reason, let attempt):
      signalCancelled(job, reason: reason, attempt: attempt)
    case .startCompletion(let transition):
      startCompletion(after: transition)
    case .announce(let kind):
      publish(kind)
    case .withdraw(let job):
      withdraw(job)
    case .holdOrRelease(let queue, let state):
      holdOrRelease(queue, state)
    case .files(let job, let seen):
      receive(seen, of: job)
    }
  }

  private func perform(_ command: RunCommand) {
    switch command {
    case .cancelRun(let reason, let signal):
      cancelRun(reason: reason, endingSignal: signal)
    case .outputClosed:
      if endingSignal == nil { cancelRun(reason: .terminate, endingSignal: SIGPIPE) }
    case .toggleSuspension:
      let suspend = !graph.queues.indices.allSatisfy(engine.isSuspended)
      for queue in graph.queues.indices { engine.setSuspended(queue, suspend) }
    case .stopJobs:
      // A job the user paused stays out of it: continuing everything must not continue it.
      backend.signalEverything(.stop, sparing: pausedHandles)
    case .continueJobs:
      backend.signalEverything(.continue)
    case .timeout(let job, let attempt):
      // A paused attempt's clock is stopped: a timer that fired anyway is set again on continue.
      if attempts[job]?.attempt == attempt, attempts[job]?.pause == nil { engine.timedOut(job) }
    case .graceOver(let handles):
      for handle in handles { backend.signal(handle, .kill) }
    case .control(let request, let reply):
      control(request, reply: reply)
    case .controlRefused(let peerUID, let peerPID):
      // Only between run-started and run-finished, which stay the first and last events.
      if identity != nil, !hasAnnouncedEnd { publish(.controlRefused(peerUID: peerUID, peerPID: peerPID)) }
    }
  }

  /// An event of the engine: the runtime's part added (pids, how an attempt ended), then
  /// delivered; what the driver does about it waits its turn.
  fileprivate func engineEvent(_ event: RunEvent) {
    guard case .transition(var transition) = event.kind else {
      bus.deliver(event)
      if case .cancelled(let job, let reason) = event.kind, attempts[job] != nil {
        take(.signalCancelled(job, reason, attempt: engine.attempt(of: job)))
      } else if case .cancelled(let job, _) = event.kind, awaited[job] != nil {
        take(.withdraw(job))
      } else if case .queueState(let queue, let state) = event.kind, scheduler != nil {
        take(.holdOrRelease(queue, state))
      }
      return
    }
    if transition.to == .executing, let attempt = attempts[transition.job] {
      transition.pids = attempt.handles.map(\.id)
    } else if transition.to != .executing, let ending = endingAttempt, ending.job == transition.job {
      transition.termination = ending.termination
    }
    if transition.to == .finished {
      if transition.outcome == .succeeded { transition.files = finishedFiles[transition.job] }
      transition.missingOutputs = missingOutputs.removeValue(forKey: transition.job) ?? []
      finishedFiles[transition.job] = nil
      noteResult(of: transition)
    } else if transition.from == .executing, transition.to == .ready {
      transition.missingOutputs = missingOutputs.removeValue(forKey: transition.job) ?? []
    }
    bus.deliver(RunEvent(time: event.time, .transition(transition)))
    // A job finished without running may still be queued where a scheduling backend put it.
    if scheduler != nil, transition.to == .finished, transition.from == .ready, !transition.resumed {
      take(.withdraw(transition.job))
    }
    // A resumed or up-to-date job ran nothing: it has nothing to complete.
    if transition.to == .finished, !transition.resumed, !transition.upToDate,
      graph.jobs[transition.job].completion != nil
    {
      take(.startCompletion(transition))
    }
  }

  /// A unit of the driver's work, taken in order.
  enum Step {
    case begin(run: RunIdentity, control: String?, warnings: [String])
    case command(RunCommand)
    case report(BackendReport)
    /// A reaction: the engine cancelled `job` (or timed it out) while `attempt` ran.
    case signalCancelled(JobID, CancelReason, attempt: Int)
    /// A reaction: the job finished; its completion command runs.
    case startCompletion(Transition)
    case announce(RunEvent.Kind)
    /// A reaction: the job finished or was cancelled before a scheduling backend began it.
    case withdraw(JobID)
    /// A reaction: a queue was suspended or resumed on a scheduling backend.
    case holdOrRelease(QueueID, QueueState)
    /// The checker looked at a job's files.
    case files(JobID, FilesSeen)
  }
}

/// The commands of one executing attempt.
struct RunningAttempt {
  /// 1-based.
  var attempt: Int
  /// One per command that started, in the order of `commands`.
  var handles: [CommandHandle] = []
  /// Started commands that have not exited yet.
  var remaining = 0
  /// The first command that did not succeed decides; `.exited(0)` while all did.
  var termination: Termination = .exited(0)
  var timeoutTimer: TimerID?
  /// When the time limit falls due, on the clock, while its timer is set.
  var timeoutDeadline: Double?
  /// The signals sent for cancellations, each once; the first one set the kill's time.
  var signalsSent: [JobSignal] = []
  /// Set while the attempt is paused (`oprun ctl pause`); its timer is not set meanwhile.
  var pause: Pause?

  struct Pause {
    /// Seconds the time limit had left when the attempt was paused; nil without a limit.
    var timeLeft: Double?
  }
}

/// The engine's observer: hands its events to the driver, which adds the runtime's part.
private final class EngineListener: RunObserver {
  unowned let driver: RunDriver

  init(driver: RunDriver) {
    self.driver = driver
  }

  func observe(_ event: RunEvent) {
    driver.engineEvent(event)
  }
}
