import Glibc
import OprunCore

/// Jobs as processes on this machine: each command is `/bin/sh -c command` in a process
/// group of its own (its handle's id is its pid, which is also the group's id), watched on
/// the run's ``EventLoop``; signals go to the whole group.
///
/// The process becomes the subreaper of everything its jobs start, so that what a job
/// leaves behind stays among its children, where ``endRun(grace:)`` finds it.
final class LocalBackend: JobBackend {
  var reportHandler: ((BackendReport) -> Void)?
  let loop: EventLoop
  let framing: OutputFraming
  let environment: JobEnvironment
  let spawner = Spawner()

  /// Every process group this run created, each with the serial of the command that
  /// created it: a group number the kernel hands out again belongs to a later command,
  /// and a signal meant for the first one must leave it alone.
  var groupSerials: [Int32: UInt64] = [:]
  private var lastSerial: UInt64 = 0
  /// Groups stopped by ``JobSignal/stop``, to continue.
  var stoppedGroups: [Int32] = []
  /// Pipes of exited commands that what they left running still holds, read until the run ends.
  let leftoverOutput = LeftoverOutput()

  init(loop: EventLoop, framing: OutputFraming, environment: JobEnvironment) {
    self.loop = loop
    self.framing = framing
    self.environment = environment
    becomeChildSubreaper()
  }

  func start(_ work: WorkOrder) -> [Result<CommandHandle, StartFailure>] {
    let environment = environment.entries(with: work.environment)
    return work.commands.map { command in
      let request = SpawnRequest(
        command: command, environment: environment, workingDirectory: work.workingDirectory, qos: work.qos,
        interactive: work.interactive, mergesStandardError: true)
      switch spawner.spawn(request) {
      case .success(let process):
        return .success(watch(process, of: work.work))
      case .failure(let error):
        return .failure(StartFailure(error.description, mayPassLater: error.isShortOfResources))
      }
    }
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

  /// Registers the new process's group and reports its output and exit.
  private func watch(_ process: SpawnedProcess, of work: WorkKey) -> CommandHandle {
    lastSerial += 1
    let handle = CommandHandle(id: process.processGroup, serial: lastSerial)
    groupSerials[process.processGroup] = lastSerial
    loop.watchProcess(
      process, output: framing, leftovers: leftoverOutput,
      onOutput: { [unowned self] stream, bytes in reportHandler?(.output(work, stream, Array(bytes))) },
      onExit: { [unowned self] termination in reportHandler?(.exited(work, handle, termination)) })
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
