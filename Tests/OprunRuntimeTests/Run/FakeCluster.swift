import OprunCore

@testable import OprunRuntime

/// A ``SchedulingBackend`` without a cluster: it records what it is submitted, withdrawn and
/// signalled, and the test says what the cluster was seen doing (``observe(_:)``). Completion
/// commands, which run locally, exit with 0 a second after they start.
final class FakeCluster: SchedulingBackend {
  var reportHandler: ((BackendReport) -> Void)?
  let clock: ManualClock
  /// Every job submitted, in submission order.
  private(set) var submitted: [PlannedJob] = []
  /// Jobs withdrawn, by name, in order (once each).
  private(set) var withdrawn: [String] = []
  /// Signals sent to cluster jobs: `name signal`.
  private(set) var signals: [String] = []
  private(set) var broadcasts: [JobSignal] = []
  /// Completion commands started.
  private(set) var completions: [WorkOrder] = []
  /// The submission fails with this message.
  var refusal: String?
  private var names: [JobID: String] = [:]
  private var nextSerial: UInt64 = 0

  init(clock: ManualClock) {
    self.clock = clock
  }

  func submit(_ plan: [PlannedJob]) -> Result<Void, SubmissionFailure> {
    if let refusal { return .failure(SubmissionFailure(refusal)) }
    submitted = plan
    for job in plan { names[job.job.id] = job.job.name }
    return .success(())
  }

  /// Submissions during the run, in order: `name` for a job's first attempt, `name#2` for its
  /// second, `held` after a held one.
  private(set) var later: [String] = []
  /// Refuses the later submission of the job with this name.
  var laterRefusal: (name: String, message: String)?

  func submitLater(_ job: PlannedJob) -> Result<Void, SubmissionFailure> {
    if let laterRefusal, laterRefusal.name == job.job.name { return .failure(SubmissionFailure(laterRefusal.message)) }
    submitted.append(job)
    names[job.job.id] = job.job.name
    let attempt = job.order.work.attempt ?? 1
    later.append(job.job.name + (attempt > 1 ? "#\(attempt)" : "") + (job.held ? " held" : ""))
    return .success(())
  }

  /// The names of the jobs of each submission of several jobs together, in order.
  private(set) var together: [[String]] = []

  func submitLater(_ jobs: [PlannedJob]) -> [Result<Void, SubmissionFailure>] {
    if jobs.count > 1 { together.append(jobs.map(\.job.name)) }
    return jobs.map { submitLater($0) }
  }

  func withdraw(_ work: WorkKey) {
    let name = names[work.job] ?? "?"
    if !withdrawn.contains(name) { withdrawn.append(name) }
  }

  /// Holds and releases, by job name: `hold a b`, `release a`.
  private(set) var holds: [String] = []

  func hold(_ works: [WorkKey]) {
    holds.append((["hold"] + works.map { names[$0.job] ?? "?" }).joined(separator: " "))
  }

  func release(_ works: [WorkKey]) {
    holds.append((["release"] + works.map { names[$0.job] ?? "?" }).joined(separator: " "))
  }

  func start(_ work: WorkOrder) -> [Result<CommandHandle, StartFailure>] {
    completions.append(work)
    nextSerial += 1
    let handle = CommandHandle(id: Int32(5000 + nextSerial), serial: nextSerial)
    clock.schedule(after: 1) { [unowned self] in reportHandler?(.exited(work.work, handle, .exited(0), nil)) }
    return [.success(handle)]
  }

  func signal(_ handle: CommandHandle, _ signal: JobSignal) {
    signals.append("\(handle.id) \(signal)")
  }

  func signalEverything(_ signal: JobSignal, sparing spared: [CommandHandle]) {
    broadcasts.append(signal)
  }

  func endRun(grace: Double) {}

  /// The handles a job's cluster job shows: its id (100 + its JobID, 1000 more for each
  /// attempt after the first) once per command.
  func handles(of job: JobID, commands: Int = 1, attempt: Int = 1) -> [CommandHandle] {
    (0..<commands).map {
      CommandHandle(id: Int32(100 + job + 1000 * (attempt - 1)), serial: UInt64(job * 16 + $0))
    }
  }

  /// What the cluster was seen doing, reported as a poll would.
  func observe(_ report: BackendReport) {
    reportHandler?(report)
  }
}

/// A real ``RunDriver`` on a ``FakeCluster``, its events recorded.
final class ClusterHarness {
  let graph: JobGraph
  let clock = ManualClock()
  let cluster: FakeCluster
  let driver: RunDriver
  let events = RecordedEvents()

  init(_ manifest: String, failurePolicy: FailurePolicy? = nil) {
    let source = SourceText(path: "/work/jobs.yaml", text: manifest)
    guard case .success(let graph) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1000) else {
      fatalError("test manifest")
    }
    self.graph = graph
    cluster = FakeCluster(clock: clock)
    driver = RunDriver(
      plan: RunPlan(graph: graph, failurePolicy: failurePolicy, backend: .slurm), backend: cluster, clock: clock)
    events.graph = graph
    driver.addObserver(events)
  }

  /// Submits the run, then begins it.
  func start() {
    if let refusal = driver.handOverToBackend() { fatalError("refused: \(refusal)") }
    driver.start(run: "test-run")
  }

  func id(_ name: String) -> JobID { graph.job(named: name)! }

  func work(_ name: String, attempt: Int = 1) -> WorkKey { WorkKey(job: id(name), purpose: .attempt(attempt)) }

  /// The cluster saw attempt `attempt` of `name` start running.
  func began(_ name: String, attempt: Int = 1) {
    cluster.observe(.began(work(name, attempt: attempt), cluster.handles(of: id(name), attempt: attempt)))
  }

  /// The cluster saw attempt `attempt` of `name` end: output first, then the end.
  func ended(_ name: String, _ termination: Termination, output: String? = nil, attempt: Int = 1) {
    let work = work(name, attempt: attempt)
    if let output { cluster.observe(.output(work, .stdout, Array((output + "\n").utf8))) }
    cluster.observe(.exited(work, cluster.handles(of: id(name), attempt: attempt)[0], termination, nil))
  }
}
