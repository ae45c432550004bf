import Glibc
import OprunCore

/// Jobs as processes on this machine: each command is its own program when it has no shell
/// syntax (``DirectCommand``), else `/bin/sh -c command`, in a process
/// group of its own (its handle's id is its pid, which is also the group's id), watched on
/// the run's ``EventLoop``; signals go to the whole group.
///
/// The process becomes the subreaper of everything its jobs start, so that what a job
/// leaves behind stays among its children, where ``endRun(grace:)`` finds it. A
/// ``Watchdog``, started with the first process, ends every group the run created should
/// oprun die before ``endRun(grace:)`` could.
final class LocalBackend: JobBackend {
  let capabilities = BackendCapabilities.thisMachine
  var reportHandler: ((BackendReport) -> Void)?
  /// Tells the user something about the run (`oprun: warning: …`).
  var onWarning: ((String) -> Void)?
  let loop: EventLoop
  let framing: OutputFraming
  /// The values of the manifest's `secrets`, masked in every command's output; nil for none.
  var secrets: SecretPatterns?
  /// What every command's environment starts from: oprun's own.
  let environment: SpawnEnvironment
  /// The grace period the watchdog gives between SIGTERM and SIGKILL.
  let grace: Double
  let spawner = Spawner()
  /// Started with the run's first process, so that a run that starts none pays nothing;
  /// nil before, after ``endRun(grace:)``, or when it could not start.
  var watchdog: Watchdog?
  private var hasStartedProcesses = false

  /// Every process group this run created, each with the serial of the command that
  /// created it: a group number the kernel hands out again belongs to a later command,
  /// and a signal meant for the first one must leave it alone.
  var groupSerials: [Int32: UInt64] = [:]
  private var lastSerial: UInt64 = 0
  /// The groups of the commands running now, whose first process has not been reaped: the
  /// children of oprun's that no job left behind.
  var runningGroups: Set<Int32> = []
  /// Groups stopped by ``JobSignal/stop``, to continue.
  var stoppedGroups: [Int32] = []
  /// Groups a job's descendant made for itself, which oprun adopted and told the watchdog of.
  var adoptedGroups: Set<Int32> = []
  /// What the main thread's `children` file says of the children oprun adopted.
  let adoptedChildren = AdoptedChildren()
  /// oprun's session: a group in it that a job's descendant made is the run's.
  let session = getsid(0)
  /// Pipes of exited commands that what they left running still holds, read until the run ends.
  let leftoverOutput = LeftoverOutput()
  /// The name of the run's cgroup folders (`oprun-RUNID`), set before the first start when
  /// some job declares resources; nil: the run makes no cgroup.
  var cgroupRunName: String?
  /// The run's cgroups, made with its first process; nil where none can be made.
  var cgroups: JobCgroups?
  /// The cgroup of each executing attempt that has one (SPEC §12).
  var attemptCgroups: [WorkKey: AttemptCgroup] = [:]

  init(loop: EventLoop, framing: OutputFraming, environment: SpawnEnvironment, grace: Double) {
    self.loop = loop
    self.framing = framing
    self.environment = environment
    self.grace = grace
  }

  func start(_ work: WorkOrder) -> [Result<CommandHandle, StartFailure>] {
    if !hasStartedProcesses { prepareFirstProcess() }
    let environment = environment.setting(work.environment)
    let cgroup = makeCgroup(for: work)
    let results = work.commands.map { command in
      var request = SpawnRequest(
        command: command, environment: environment, workingDirectory: work.workingDirectory, qos: work.qos,
        interactive: work.interactive, mergesStandardError: true, directArguments: DirectCommand.arguments(of: command))
      request.cgroupJoining = cgroup?.joining ?? []
      switch spawner.spawn(request, announcingTo: watchdog) {
      case .success(let process):
        return Result<CommandHandle, StartFailure>.success(watch(process, of: work.work))
      case .failure(let error):
        let reason = secrets?.masked(error.description) ?? error.description
        return .failure(StartFailure(reason, mayPassLater: error.isShortOfResources))
      }
    }
    if let cgroup { keep(cgroup, of: work.work, started: results.count { (try? $0.get()) != nil }) }
    return results
  }

  func signal(_ handle: CommandHandle, _ signal: JobSignal) {
    guard groupSerials[handle.id] == handle.serial else { return }
    signalGroup(handle.id, signal.number)
  }

  func signalEverything(_ signal: JobSignal, sparing spared: [CommandHandle]) {
    let sparedGroups = Set(spared.lazy.filter { self.groupSerials[$0.id] == $0.serial }.map(\.id))
    let groups = ownChildGroups().subtracting(sparedGroups)
    switch signal {
    case .stop:
      stoppedGroups = Array(groups)
      for group in stoppedGroups { signalGroup(group, SIGSTOP) }
    case .continue:
      for group in stoppedGroups { signalGroup(group, SIGCONT) }
      stoppedGroups = []
    case .interrupt, .terminate, .kill:
      for group in groups { signalGroup(group, signal.number) }
    }
  }

  /// Asks for the loop's short slice (``LoopSlice``), starts the watchdog, then makes oprun
  /// the subreaper of what the jobs start (in that order: the watchdog must not become
  /// oprun's child).
  private func prepareFirstProcess() {
    hasStartedProcesses = true
    LoopSlice.requestForThisThread()
    makeRunCgroups()
    switch Watchdog.start(grace: grace, cgroupFolders: cgroups.map { [$0.runFolder] } ?? []) {
    case .success(let started): watchdog = started
    case .failure(let error): onWarning?("\(error); jobs would outlive oprun if it were killed")
    }
    becomeChildSubreaper()
  }

  /// Registers the new process's group and reports its output and exit.
  private func watch(_ process: SpawnedProcess, of work: WorkKey) -> CommandHandle {
    lastSerial += 1
    let group = process.processGroup
    let handle = CommandHandle(id: group, serial: lastSerial)
    groupSerials[group] = lastSerial
    runningGroups.insert(group)
    loop.watchProcess(
      process, output: framing, masking: secrets, leftovers: leftoverOutput,
      onOutput: { [unowned self] stream, bytes in reportHandler?(.output(work, stream, Array(bytes))) },
      onExit: { [unowned self] termination, usage in
        // A group left empty can never be joined again: only its number can come back.
        if let watchdog, !processGroupExists(group) { watchdog.forget(group) }
        runningGroups.remove(group)
        let nothingLeftBehind = listAdoptedGroups()
        let reported = usageAtExit(of: work, termination, measured: usage, nothingLeftBehind: nothingLeftBehind)
        reportHandler?(.exited(work, handle, termination, reported))
      })
    return handle
  }
}

extension JobSignal {
  /// The POSIX signal sent to a process group.
  var number: Int32 {
    switch self {
    case .interrupt: SIGINT
    case .terminate: SIGTERM
    case .kill: SIGKILL
    case .stop: SIGSTOP
    case .continue: SIGCONT
    }
  }
}
