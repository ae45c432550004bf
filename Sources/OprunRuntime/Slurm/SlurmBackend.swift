import Glibc
import OprunCore

/// Jobs as Slurm batch jobs: the whole run is submitted at once (``submit(_:)``), one `sbatch`
/// per job with its dependencies, and Slurm schedules it without oprun in the loop (a retry,
/// and a job that waits for the last attempt of one that may be retried, are submitted
/// when the driver knows them, ``submitLater(_:)``); oprun
/// polls the run's jobs (one `squeue` per tick, off the loop's thread of control: the loop
/// reads its answer as it reads a job's pipe) and reports what it sees. Completion commands
/// run on this machine, through the ``LocalBackend`` the Slurm backend is given.
///
/// Each cluster job is one handle per command of its job, all with the Slurm job id as their
/// id; signalling any of them cancels the cluster job (`scancel`), once.
final class SlurmBackend: SchedulingBackend {
  var reportHandler: ((BackendReport) -> Void)? {
    didSet { local.reportHandler = reportHandler }
  }
  /// Tells the user something about the run (`oprun: warning: …`).
  var onWarning: ((String) -> Void)?
  let loop: EventLoop
  /// Runs the completions.
  let local: LocalBackend
  let options: SlurmOptions
  /// The run's id, in every job's name.
  let runID: String
  /// Where the jobs' output files go; created by ``submit(_:)``.
  let outputFolder: String
  let tool: SlurmTool
  /// Seconds between two polls.
  let pollInterval: Double

  /// Every submitted job, in submission order (a job's attempts after its first later); the
  /// index is its place in `jobs`.
  var jobs: [ClusterJob] = []
  /// Index in `jobs` by the job's id: its last attempt submitted.
  var indexByJob: [JobID: Int] = [:]
  /// A poll's `squeue` is running.
  var isPolling = false
  /// The next poll's timer is set.
  var isPollDue = false
  /// A warning about polling was given; no second one is.
  var warnedAboutPolling = false

  struct ClusterJob {
    var job: JobID
    var name: String
    var slurmID: Int32
    var work: WorkKey
    var commands: Int
    var outputPath: String
    var phase = Phase.queued
    /// Cancelled (`scancel`) by this run.
    var cancelled = false
    /// Held by this run (submitted `--hold`, or `scontrol hold`), until released.
    var held = false

    enum Phase { case queued, running, ended }

    var handles: [CommandHandle] {
      (0..<commands).map { CommandHandle(id: slurmID, serial: SlurmBackend.handleBit | UInt64(job) << 8 | UInt64($0)) }
    }
  }

  /// Set in the serial of every cluster job's handle: local handles count up from 1.
  static let handleBit: UInt64 = 1 << 63

  init(
    loop: EventLoop, local: LocalBackend, options: SlurmOptions, runID: String, outputFolder: String,
    environment: [String], pollInterval: Double = 0.25
  ) {
    self.loop = loop
    self.local = local
    self.options = options
    self.runID = runID
    self.outputFolder = outputFolder
    self.tool = SlurmTool(spawner: Spawner(), environment: environment)
    self.pollInterval = pollInterval
  }

  // MARK: JobBackend

  /// Completion commands run on this machine.
  func start(_ work: WorkOrder) -> [Result<CommandHandle, StartFailure>] {
    local.start(work)
  }

  func signal(_ handle: CommandHandle, _ signal: JobSignal) {
    guard handle.serial & Self.handleBit != 0 else { return local.signal(handle, signal) }
    guard let index = jobs.firstIndex(where: { $0.slurmID == handle.id }) else { return }
    switch signal {
    case .interrupt, .terminate, .kill: cancel([index])
    case .stop: control(["scontrol", "suspend", String(handle.id)])
    case .continue: control(["scontrol", "resume", String(handle.id)])
    }
  }

  func signalEverything(_ signal: JobSignal, sparing spared: [CommandHandle]) {
    local.signalEverything(signal, sparing: spared)
    let sparedIDs = Set(spared.filter { $0.serial & Self.handleBit != 0 }.map(\.id))
    switch signal {
    case .interrupt, .terminate, .kill:
      cancel(jobs.indices.filter { jobs[$0].phase != .ended && !sparedIDs.contains(jobs[$0].slurmID) })
    case .stop, .continue:
      break
    }
  }

  /// Nothing of the run stays queued or running on the cluster.
  func endRun(grace: Double) {
    cancel(jobs.indices.filter { jobs[$0].phase != .ended })
    local.endRun(grace: grace)
  }

  // MARK: SchedulingBackend

  func withdraw(_ work: WorkKey) {
    guard let index = indexByJob[work.job], jobs[index].work == work, jobs[index].phase != .ended else { return }
    cancel([index])
  }

  /// `scontrol hold` of the jobs still queued, in one call.
  func hold(_ works: [WorkKey]) {
    let chosen = works.compactMap { indexByJob[$0.job] }.filter {
      jobs[$0].phase == .queued && !jobs[$0].cancelled && !jobs[$0].held
    }
    guard !chosen.isEmpty else { return }
    for index in chosen { jobs[index].held = true }
    control(["scontrol", "hold", chosen.map { String(jobs[$0].slurmID) }.joined(separator: ",")])
  }

  /// `scontrol release` of the jobs ``hold(_:)`` held, still queued and not cancelled.
  func release(_ works: [WorkKey]) {
    let chosen = works.compactMap { indexByJob[$0.job] }.filter { jobs[$0].held }
    for index in chosen { jobs[index].held = false }
    let queued = chosen.filter { jobs[$0].phase == .queued && !jobs[$0].cancelled }
    guard !queued.isEmpty else { return }
    control(["scontrol", "release", queued.map { String(jobs[$0].slurmID) }.joined(separator: ",")])
  }

  /// `scancel` of the jobs at `indices` not cancelled yet, in one call.
  func cancel(_ indices: [Int]) {
    let chosen = indices.filter { !jobs[$0].cancelled && jobs[$0].phase != .ended }
    guard !chosen.isEmpty else { return }
    for index in chosen { jobs[index].cancelled = true }
    control(["scancel"] + chosen.map { String(jobs[$0].slurmID) })
  }

  /// Runs a steering command; a failure is a warning.
  private func control(_ arguments: [String]) {
    switch tool.run(arguments) {
    case .failure(let error): onWarning?("\(arguments[0]): \(error)")
    case .success(let answer) where !answer.succeeded:
      onWarning?("\(arguments.joined(separator: " ")): \(answer.message)")
    case .success: break
    }
  }
}
