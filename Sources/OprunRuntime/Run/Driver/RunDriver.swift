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
  let clock: any RunClock
  let bus = EventBus()
  /// Seconds between the signal that cancels an executing attempt and the kill.
  let grace: Double
  /// The clock's reading when the run began: events are stamped with seconds since then.
  let startTime: Double
  /// Where a job without a `cwd` runs: the manifest's folder (worked out once, not per start).
  let manifestFolder: String

  // The parts, each owning its state and saying its invariant.
  /// Where the run is in its life and how it ends.
  var lifecycle = RunLifecycle()
  /// What the run has running on the backend, by job.
  var attempts: AttemptTable
  /// What each job's attempts used, for the transitions that carry it.
  var resourceUse: UsageTable
  /// On a backend handed the whole run up front: what it has not yet been seen to begin.
  var cluster: ClusterWaiting?
  /// On such a backend: which attempt of each job it was handed, and which jobs wait.
  var submissions: ClusterSubmissions?
  /// When files decide whether jobs run (SPEC §10): each job's files, from look to record.
  var files: FileTracker?
  /// When files decide and `.oprun/` may be used: the locks between runs of jobs with outputs.
  var locks: LockTable?
  /// When a cache of outputs is configured (SPEC §14) and files decide: each cached job's key,
  /// held decision and output.
  var caches: CacheTracker?

  /// Set while the engine hears how an attempt ended: the termination its transition carries.
  var endingAttempt: (job: JobID, termination: Termination, outOfMemoryLimit: Int?)?
  /// What each name a control request may give means: a matrix job's plain name is its instances.
  lazy var jobNames = JobNameIndex(graph)

  /// Steps not yet taken, in order, from `nextStep` on.
  private var steps: [Step] = []
  private var nextStep = 0
  private var isTakingSteps = false

  /// A run of `plan` on `backend`, timed by `clock`; `fileTracking` is how files are looked
  /// at, used when the plan says files decide, and `cache` where jobs' outputs are kept then.
  public init(
    plan: RunPlan, fileTracking: FileTracking? = nil, cache: OutputCache? = nil, backend: any JobBackend,
    clock: any RunClock
  ) {
    let graph = plan.graph
    self.graph = graph
    manifestFolder = graph.manifestFolder
    self.backend = backend
    self.clock = clock
    grace = plan.grace
    let startTime = clock.now()
    self.startTime = startTime
    attempts = AttemptTable()
    resourceUse = UsageTable()
    cluster = ClusterWaiting(backend: backend, jobs: graph.jobs.count)
    if cluster != nil { submissions = ClusterSubmissions(graph) }
    if let fileTracking, plan.tracksFiles {
      let fingerprints = plan.fingerprints.count == graph.jobs.count ? plan.fingerprints : graph.fingerprints()
      files = FileTracker(tracking: fileTracking, fingerprints: fingerprints)
      if let jobLocks = fileTracking.locks { locks = LockTable(locks: jobLocks, graph: graph) }
      if let cache { caches = CacheTracker(cache: cache, jobs: graph.jobs.count) }
    }
    engine = QueueEngine(
      graph: graph, failurePolicy: plan.failurePolicy, resumePlan: plan.resumePlan, criticalPath: plan.criticalPath,
      checkingFiles: files != nil, resources: plan.resources, clock: { clock.now() - startTime })
    engine.addObserver(EngineListener(driver: self))
    backend.reportHandler = { [unowned self] report in self.report(report) }
  }

  /// Which run this is, once it has begun.
  public var identity: RunIdentity? { lifecycle.identity }
  /// The signal the run ends by, from the first ``RunCommand/cancelRun(reason:endingSignal:)``.
  public var endingSignal: Int32? { lifecycle.endingSignal }

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
  public var isFinished: Bool { engine.isDrained && !attempts.isRunningAnything }

  /// Ends the run once it ``isFinished``: what the jobs left running is ended, the last
  /// event is delivered, and the exit status returned (128 + the signal the run ends by,
  /// when it ends by one).
  public func finish() -> Int32 {
    backend.endRun(grace: grace)
    let status = endingSignal.map(ExitStatus.signalled) ?? engine.exitStatus()
    take(.announce(.runFinished(exitCode: status, counts: engine.counts)))
    lifecycle.announceEnd()
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
      if retryLaunchesWaitingForResources() { continue }
      if checkNextJobWithRoom() { continue }
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
      lifecycle.begin(run)
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
    case .submitWaitingDependents(let job):
      submitWaitingDependents(of: job)
    case .holdOrRelease(let queue, let state):
      holdOrRelease(queue, state)
    case .limitOnBackend(let queue, let maxConcurrent):
      limitOnBackend(queue, maxConcurrent)
    case .files(let job, let seen):
      receive(seen, of: job)
    case .cache(let job, let answer):
      receive(answer, of: job)
    case .storeInCache(let transition):
      storeInCache(after: transition)
    }
  }

  private func perform(_ command: RunCommand) {
    switch command {
    case .cancelRun(let reason, let signal):
      cancelRun(reason: reason, endingSignal: signal)
    case .filesChanged(let paths, let count, let jobs):
      publish(.watchChanged(paths: paths, count: count))
      cancelChanged(jobs)
    case .outputClosed:
      if lifecycle.endingSignal == nil { cancelRun(reason: .terminate, endingSignal: SIGPIPE) }
    case .toggleSuspension:
      let suspend = !graph.queues.indices.allSatisfy(engine.isSuspended)
      for queue in graph.queues.indices { engine.setSuspended(queue, suspend) }
    case .stopJobs:
      // A job the user paused stays out of it: continuing everything must not continue it.
      backend.signalEverything(.stop, sparing: attempts.pausedHandles)
      // Time the run spends stopped does not count against time limits, as for a paused job.
      for timer in attempts.stopTimeLimits(at: clock.now()) { clock.cancelTimer(timer) }
    case .continueJobs:
      backend.signalEverything(.continue)
      for restart in attempts.timeLimitsToRestart() {
        scheduleTimeout(of: restart.job, attempt: restart.attempt, after: restart.timeLeft)
      }
    case .timeout(let job, let attempt):
      // A paused attempt's clock is stopped, and so is every attempt's while the run is: a
      // timer that fired anyway is set again on continue.
      if let running = attempts[job], running.attempt == attempt, running.pause == nil,
        running.timeLeftWhileStopped == nil
      {
        engine.timedOut(job)
      }
    case .graceOver(let handles):
      for handle in handles { backend.signal(handle, .kill) }
    case .control(let request, let reply):
      control(request, reply: reply)
    case .controlRefused(let peerUID, let peerPID):
      // Only between run-started and run-finished, which stay the first and last events.
      if lifecycle.isInProgress { publish(.controlRefused(peerUID: peerUID, peerPID: peerPID)) }
    case .retryLocks:
      retryLocks()
    }
  }

  /// An event of the engine: the runtime's part added (pids, how an attempt ended), then
  /// delivered; what the driver does about it waits its turn.
  fileprivate func engineEvent(_ event: RunEvent) {
    guard case .transition(var transition) = event.kind else {
      bus.deliver(event)
      if case .cancelled(let job, _) = event.kind, locks != nil { abandonLockWait(of: job) }
      if case .cancelled(let job, let reason) = event.kind, attempts[job] != nil {
        take(.signalCancelled(job, reason, attempt: engine.attempt(of: job)))
      } else if case .cancelled(let job, _) = event.kind, cluster?.awaitedAttempt(of: job) != nil {
        take(.withdraw(job))
      } else if case .queueState(let queue, let state) = event.kind, cluster != nil {
        take(.holdOrRelease(queue, state))
      } else if case .limit(let queue, let maxConcurrent) = event.kind, cluster != nil {
        take(.limitOnBackend(queue, maxConcurrent))
      }
      return
    }
    if transition.to == .executing, let attempt = attempts[transition.job] {
      transition.pids = attempt.handles.map(\.id)
      caches?.beginAttempt(of: transition.job)
    } else if transition.to != .executing, let ending = endingAttempt, ending.job == transition.job {
      transition.termination = ending.termination
      transition.outOfMemoryLimit = ending.outOfMemoryLimit
    }
    transition.usage = resourceUse.usage(for: transition)
    files?.annotate(&transition)
    caches?.annotate(&transition)
    bus.deliver(RunEvent(time: event.time, .transition(transition)))
    if transition.to == .finished, caches?.key(of: transition.job) != nil { take(.storeInCache(transition)) }
    // Its record is written now (the journal observes first): another run may decide it.
    if transition.to == .finished { warnOfLockFile(of: transition.job, failure: locks?.release(transition.job)) }
    // A job finished without running may still be queued where a cluster put it.
    if cluster != nil, transition.to == .finished, transition.from == .ready, !transition.resumed {
      take(.withdraw(transition.job))
    }
    // Its last attempt is known now: what waited for it may be submitted.
    if cluster != nil, transition.to == .finished { take(.submitWaitingDependents(transition.job)) }
    // A resumed, up-to-date or restored job ran nothing: it has nothing to complete.
    if transition.to == .finished, !transition.resumed, !transition.upToDate, !transition.cached,
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
    /// A reaction: the job finished on a scheduling backend; the jobs that waited for its
    /// last attempt are submitted.
    case submitWaitingDependents(JobID)
    /// A reaction: a queue was suspended or resumed on a scheduling backend.
    case holdOrRelease(QueueID, QueueState)
    /// A reaction: a queue's limit changed on a scheduling backend.
    case limitOnBackend(QueueID, Int)
    /// The checker looked at a job's files.
    case files(JobID, FilesSeen)
    /// The cache answered about a job.
    case cache(JobID, CacheStep)
    /// A reaction: the job finished; one that ran and succeeded is stored in the cache.
    case storeInCache(Transition)
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
