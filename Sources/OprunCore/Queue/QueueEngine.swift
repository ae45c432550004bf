/// The operation queues of one run: Foundation's `Operation`/`OperationQueue` semantics,
/// without processes, threads or a clock of its own.
///
/// The run driver drives it from one thread: ``start()``, then repeatedly ``nextLaunch()``,
/// starting what it returns and reporting back with ``didStart(_:)`` and
/// ``didFinish(_:succeeded:)``, until ``isDrained``. Steering (cancel, suspend, limits,
/// priorities) may come in between, from signals or the control socket. Every transition
/// and every raised cancelled flag is delivered, in order, to the observers; the engine
/// never runs or signals anything itself: the driver acts on `cancelled` events.
/// Observers must not call back into the engine while they are being notified.
///
/// Ready operations of a queue wait in a ``ReadyHeap``; only queues that may have startable
/// work are visited, so starting N operations costs O(N log N) whatever the graph's shape.
public final class QueueEngine {
  /// The jobs and queues this run was made from.
  public let graph: JobGraph
  public let failurePolicy: FailurePolicy
  let clock: () -> Double
  var observers: [any RunObserver] = []

  // Per job, indexed by JobID.

  var phase: [Phase]
  /// Non-nil exactly when the cancelled flag is raised; it is never lowered.
  var cancelReason: [CancelReason?]
  /// Non-nil exactly when `phase` is `.finished`.
  var outcomes: [Outcome?]
  /// 1-based; raised when a failed attempt goes back to ready.
  var attempts: [Int]
  /// The clock's value when the current attempt began executing.
  var executingSince: [Double]
  /// Dependencies not finished yet; meaningful while `phase` is `.pending`.
  var unfinishedDependencies: [Int]
  /// Finished dependencies whose outcome was not `succeeded`; what `run-if` reads.
  var unsuccessfulDependencies: [Int]
  /// The current attempt ran out of time (``timedOut(_:)``).
  var attemptTimedOut: [Bool]
  /// The priority band: the explicit priority, else (off serial queues) the QoS band.
  var bands: [Priority]
  /// The position within the band: manifest index (under `--schedule critical-path`, the
  /// job's ``CriticalPath/ranks``), or a fresh number after a live priority change. Unique
  /// per job; the ready heap's live entry for a job carries it.
  var sequences: [Int]
  var nextSequence: Int

  // Per queue, indexed by QueueID.

  var queues: [QueueRuntime]
  /// Queues that may be able to start something; each listed at most once (`isListed`).
  var queuesWithWork: [QueueID] = []
  /// Where ``nextLaunch()`` is in `queuesWithWork`: the queues before it have nothing to start.
  var listCursor = 0

  /// The interactive job that executes now, if any; see `QueueEngine+Console`.
  var consoleHolder: JobID?
  /// Interactive jobs their queue reached while the console was taken, in that order.
  var consoleWaiters: [JobID] = []

  var finishedCount = 0
  var outcomeCounts: [Outcome: Int]
  /// `on-failure: stop` has fired: only `run-if` always/failure jobs start from now on.
  var stopTriggered = false
  var hasStarted = false
  /// `--resume`: which jobs finish at once, resumed, and why the others run.
  public let resumePlan: ResumePlan?
  /// Resumed jobs that became ready while one was finishing, in order; see `finishResumed`.
  var resumedToFinish: [JobID] = []
  /// Jobs whose files decide whether they run (SPEC §10): once their dependencies have
  /// finished they are ready, and wait outside their queue for ``checked(_:decision:)``.
  let checksFiles: [Bool]
  /// Jobs waiting for their files to be looked at, not yet handed out by ``nextCheck()``.
  var checksToStart: [JobID] = []
  /// Under `--resume`: the job runs although the plan counted on it being resumed — its files
  /// decided it runs, or a dependency of it did — so what depends on it runs too.
  var breaksResumedChain: [Bool]
  /// What a ready job's files decided, for its next transition (executing, or finished when
  /// it is cancelled before it starts) to say; nil once said.
  var decisionToAnnounce: [RunDecision?]
  var nextCheckIndex = 0
  /// What running jobs' needs may add up to (SPEC §12); nil when the run schedules no resources.
  var budget: ResourceBudget?
  /// Made only when a budget is given and some job declares needs; see `QueueEngine+Resources`.
  var ledger: ResourceLedger?
  /// A live change set the budget below what running jobs hold; cleared once they hold no more than it.
  var budgetWasLoweredBelowUse = false

  /// A run of `graph` whose events are stamped with `clock()` (seconds since the run
  /// started); under `--resume`, the jobs `resumePlan` resumes finish as soon as they are ready.
  /// Within a priority band, ready jobs start in manifest order (FIFO), or by `criticalPath`
  /// when given (`--schedule critical-path`): longest remaining path first, then manifest order.
  /// `checkingFiles`: a job that declares inputs or outputs is decided by its files once it is
  /// ready (``nextCheck()``), and never resumed. `resources`: the budget that jobs'
  /// declared needs are scheduled against (`QueueEngine+Resources`); none without it.
  public init(
    graph: JobGraph, failurePolicy: FailurePolicy, resumePlan: ResumePlan? = nil, criticalPath: CriticalPath? = nil,
    checkingFiles: Bool = false, resources: ResourcePlan? = nil, clock: @escaping () -> Double
  ) {
    precondition(criticalPath.map { $0.ranks.count == graph.jobs.count } ?? true, "a critical path of another graph")
    self.graph = graph
    self.failurePolicy = failurePolicy
    self.resumePlan = resumePlan
    self.clock = clock
    let count = graph.jobs.count
    phase = Array(repeating: .pending, count: count)
    cancelReason = Array(repeating: nil, count: count)
    outcomes = Array(repeating: nil, count: count)
    attempts = Array(repeating: 1, count: count)
    executingSince = Array(repeating: 0, count: count)
    unfinishedDependencies = graph.jobs.map { $0.dependencies.count }
    unsuccessfulDependencies = Array(repeating: 0, count: count)
    attemptTimedOut = Array(repeating: false, count: count)
    bands = graph.jobs.map { job in job.band(onSerialQueue: graph.queues[job.queue].maxConcurrent == 1) }
    // Ranks, like manifest indices, are a permutation of 0..<count: `nextSequence` still
    // puts a re-prioritised job after every other job of its new band.
    sequences = criticalPath?.ranks ?? Array(0..<count)
    nextSequence = count
    queues = graph.queues.map { QueueRuntime(maxConcurrent: $0.maxConcurrent) }
    outcomeCounts = Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0, 0) })
    decisionToAnnounce = Array(repeating: nil, count: count)
    breaksResumedChain = Array(repeating: false, count: count)
    checksFiles = checkingFiles ? graph.jobs.map(\.tracksFiles) : Array(repeating: false, count: count)
    budget = resources?.budget
    if let resources, graph.declaresResources {
      ledger = ResourceLedger(graph: graph, pastDurations: resources.pastDurations)
    }
  }

  /// Delivers every later event to `observer`, after the observers added before it.
  public func addObserver(_ observer: any RunObserver) {
    observers.append(observer)
  }

  func emit(_ kind: RunEvent.Kind, at time: Double) {
    guard !observers.isEmpty else { return }
    let event = RunEvent(time: time, kind)
    for observer in observers { observer.observe(event) }
  }

  func emit(_ kind: RunEvent.Kind) {
    guard !observers.isEmpty else { return }
    emit(kind, at: clock())
  }

  func queue(of job: JobID) -> QueueID { graph.jobs[job].queue }
}

/// Where a job is in its life; finer than ``JobState`` by one step.
enum Phase {
  case pending
  /// Ready (its dependencies have finished), out of its queue while its files are looked at
  /// to decide whether it runs.
  case checking
  /// In its queue's ready heap.
  case ready
  /// Handed to the driver by `nextLaunch()`: holds a slot, not yet executing.
  case launching
  case executing
  case finished

  var state: JobState {
    switch self {
    case .pending: .pending
    case .checking, .ready, .launching: .ready
    case .executing: .executing
    case .finished: .finished
    }
  }
}

/// The live state of one queue.
struct QueueRuntime {
  var heap = ReadyHeap()
  /// Slots held: jobs launching or executing. May exceed `maxConcurrent` after it is lowered.
  var running = 0
  var maxConcurrent: Int
  var suspended = false
  /// In `QueueEngine.queuesWithWork`.
  var isListed = false

  var hasFreeSlot: Bool { !suspended && running < maxConcurrent }
}
