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
/// The instances of a matrix job submitted together with the same dependencies go as one job
/// array (``SlurmArray``): one `sbatch`, each instance a task of it, polled, cancelled, held
/// and depended on as `ARRAY_TASK`.
///
/// Each cluster job is one handle per command of its job, all with the Slurm job id as their
/// id (an array task's own, once it was seen running); signalling any of them cancels the
/// cluster job (`scancel`), once.
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
  /// Each queue's `max-concurrent` as the manifest or `-j` wrote it, nil when neither did:
  /// at most so many tasks of one of its arrays run at once (`--array=…%K`).
  let queueLimits: [Int?]

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
  /// The indices in `jobs` of each job array's tasks, by the array's Slurm id.
  var arrayTasks: [Int32: [Int]] = [:]
  /// The most tasks of one array on this cluster; nil until asked.
  var maxArrayTasks: Int?

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
    /// Its index in the job array `slurmID`; nil for a job of its own.
    var arrayTask: Int? = nil
    /// The id Slurm gave an array task of its own, learnt when it was first seen running or
    /// ended; nil until then, and for a job of its own.
    var taskID: Int32? = nil

    enum Phase { case queued, running, ended }

    /// How Slurm's commands name it: `ID`, or `ARRAY_TASK` for a task of a job array.
    var slurmName: String { arrayTask.map { "\(slurmID)_\($0)" } ?? String(slurmID) }
    /// The id its handles carry.
    var handleID: Int32 { taskID ?? slurmID }

    var handles: [CommandHandle] {
      (0..<commands).map { CommandHandle(id: handleID, serial: SlurmBackend.handleBit | UInt64(job) << 8 | UInt64($0)) }
    }
  }

  /// Set in the serial of every cluster job's handle: local handles count up from 1.
  static let handleBit: UInt64 = 1 << 63

  init(
    loop: EventLoop, local: LocalBackend, options: SlurmOptions, runID: String, outputFolder: String,
    environment: [String], pollInterval: Double = 0.25, queueLimits: [Int?] = []
  ) {
    self.loop = loop
    self.local = local
    self.options = options
    self.runID = runID
    self.outputFolder = outputFolder
    self.tool = SlurmTool(spawner: Spawner(), environment: SpawnEnvironment(environment))
    self.pollInterval = pollInterval
    self.queueLimits = queueLimits
  }

  // MARK: JobBackend

  /// Completion commands run on this machine.
  func start(_ work: WorkOrder) -> [Result<CommandHandle, StartFailure>] {
    local.start(work)
  }

  func signal(_ handle: CommandHandle, _ signal: JobSignal) {
    guard handle.serial & Self.handleBit != 0 else { return local.signal(handle, signal) }
    let job = JobID((handle.serial & ~Self.handleBit) >> 8)
    guard let index = jobs.lastIndex(where: { $0.job == job && $0.handleID == handle.id }) else { return }
    switch signal {
    case .interrupt, .terminate, .kill: cancel([index])
    case .stop: control(["scontrol", "suspend", jobs[index].slurmName])
    case .continue: control(["scontrol", "resume", jobs[index].slurmName])
    }
  }

  func signalEverything(_ signal: JobSignal, sparing spared: [CommandHandle]) {
    local.signalEverything(signal, sparing: spared)
    let sparedIDs = Set(spared.filter { $0.serial & Self.handleBit != 0 }.map(\.id))
    switch signal {
    case .interrupt, .terminate, .kill:
      cancel(jobs.indices.filter { jobs[$0].phase != .ended && !sparedIDs.contains(jobs[$0].handleID) })
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
    control(["scontrol", "hold", chosen.map { jobs[$0].slurmName }.joined(separator: ",")])
  }

  /// `scontrol release` of the jobs ``hold(_:)`` held, still queued and not cancelled.
  func release(_ works: [WorkKey]) {
    let chosen = works.compactMap { indexByJob[$0.job] }.filter { jobs[$0].held }
    for index in chosen { jobs[index].held = false }
    let queued = chosen.filter { jobs[$0].phase == .queued && !jobs[$0].cancelled }
    guard !queued.isEmpty else { return }
    control(["scontrol", "release", queued.map { jobs[$0].slurmName }.joined(separator: ",")])
  }

  /// Each job array among `works` with tasks not ended runs at most `maxConcurrent` of them at
  /// once from now on (`scontrol update ArrayTaskThrottle`; 0, none, when it has no more tasks).
  func limit(_ works: [WorkKey], to maxConcurrent: Int) {
    var arrays: [Int32] = []
    for work in works {
      guard let index = indexByJob[work.job], jobs[index].arrayTask != nil, jobs[index].phase != .ended,
        !arrays.contains(jobs[index].slurmID)
      else { continue }
      arrays.append(jobs[index].slurmID)
    }
    for array in arrays {
      let throttle = maxConcurrent < arrayTasks[array, default: []].count ? maxConcurrent : 0
      control(["scontrol", "update", "JobId=\(array)", "ArrayTaskThrottle=\(throttle)"])
    }
  }

  /// `scancel` of the jobs at `indices` not cancelled yet, in one call: a job array by its id
  /// when each of its tasks is cancelled now or was before or has ended (Ctrl-C's one
  /// `scancel ARRAY`), a task by `ARRAY_TASK` otherwise.
  func cancel(_ indices: [Int]) {
    let chosen = indices.filter { !jobs[$0].cancelled && jobs[$0].phase != .ended }
    guard !chosen.isEmpty else { return }
    for index in chosen { jobs[index].cancelled = true }
    control(["scancel"] + slurmNames(of: chosen) { jobs[$0].cancelled || jobs[$0].phase == .ended })
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
