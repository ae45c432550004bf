import OprunCore

@testable import OprunRuntime

/// How a fake command behaves, scripted by its text.
struct FakeCommand {
  /// What a command does when it is sent SIGINT or SIGTERM.
  enum Reaction {
    /// Dies of the signal at once.
    case dies
    /// Goes on as if nothing happened (only a kill ends it).
    case ignores
    /// Cleans up for `seconds`, then exits with `termination`.
    case exits(after: Double, Termination)
  }

  /// Seconds from its start to its exit.
  var duration: Double = 1
  var termination: Termination = .exited(0)
  /// Lines it writes as it starts.
  var output: [String] = []
  var onSignal: Reaction = .dies
  /// It cannot start, for this reason.
  var startFailure: String?
  /// Its start failure is for want of resources the running commands give back.
  var startFailureMayPassLater = false
  /// It leaves a process behind in its group when it exits, which only a kill ends.
  var leavesProcessBehind = false
  /// What it reports having used when it exits.
  var usage: ResourceUsage?
}

/// A backend without processes: commands follow their ``FakeCommand`` script on a
/// ``ManualClock``, and every start and signal is recorded. Reports are made only from the
/// clock's timers, never from inside `start` or `signal`, as a real backend's come from its
/// event loop.
///
/// Stop and continue are modelled as SIGSTOP and SIGCONT are: a stopped command does not
/// exit until it is continued (only a kill ends it meanwhile), its exit comes as much later
/// as it was stopped, and SIGINT or SIGTERM sent while it is stopped waits until it is
/// continued. Stopping everything stops what runs, but those it is told to spare, and
/// continuing everything continues only what stopping everything stopped.
final class FakeBackend: JobBackend {
  let capabilities = BackendCapabilities.thisMachine
  var reportHandler: ((BackendReport) -> Void)?
  let clock: ManualClock
  /// Scripts by command text; a command not listed succeeds after a second.
  var scripts: [String: FakeCommand] = [:]
  /// Scripts for the next starts of a command, by its text: each is used once, in order,
  /// before ``scripts`` (a first attempt that fails, a retry that succeeds).
  var nextScripts: [String: [FakeCommand]] = [:]

  /// Every work order, in the order started.
  private(set) var orders: [WorkOrder] = []
  /// Every signal sent to a command, with the command's text, its handle and the time.
  private(set) var signals: [(command: String, handle: CommandHandle, signal: JobSignal, time: Double)] = []
  /// Signals sent to everything at once, with the time.
  private(set) var broadcasts: [(signal: JobSignal, time: Double)] = []
  /// The grace ``endRun(grace:)`` was called with; nil until it is.
  private(set) var endRunGrace: Double?
  var runEnded: Bool { endRunGrace != nil }

  private struct Process {
    var command: String
    var work: WorkKey
    var script: FakeCommand
    var isRunning = true
    /// A process left behind in the group, alive until killed.
    var leftoverAlive = false
    var exitTimer: TimerID?
    /// When it exits, and how, unless stopped or signalled meanwhile.
    var exit: (time: Double, termination: Termination)?
    /// While stopped: the seconds it had left to run when it was stopped.
    var stoppedWithTimeLeft: Double?
    /// SIGINT or SIGTERM sent while it was stopped, acted on when it is continued.
    var pendingSignals: [JobSignal] = []
  }

  private var processes: [CommandHandle: Process] = [:]
  private var nextSerial: UInt64 = 0
  /// What the last stop of everything stopped, for the next continue of everything.
  private var stoppedByBroadcast: [CommandHandle] = []

  init(clock: ManualClock) {
    self.clock = clock
  }

  func start(_ work: WorkOrder) -> [Result<CommandHandle, StartFailure>] {
    orders.append(work)
    return work.commands.map { command in
      let script = nextScript(for: command)
      if let reason = script.startFailure {
        return .failure(StartFailure(reason, mayPassLater: script.startFailureMayPassLater))
      }
      nextSerial += 1
      let handle = CommandHandle(id: Int32(1000 + nextSerial), serial: nextSerial)
      processes[handle] = Process(command: command, work: work.work, script: script)
      if !script.output.isEmpty {
        clock.schedule(after: 0) { [unowned self] in
          for line in script.output { reportHandler?(.output(work.work, .stdout, Array((line + "\n").utf8))) }
        }
      }
      exitSoon(handle, script.termination, after: script.duration)
      return .success(handle)
    }
  }

  func signal(_ handle: CommandHandle, _ signal: JobSignal) {
    guard let process = processes[handle] else { return }
    signals.append((process.command, handle, signal, clock.now()))
    deliver(signal, to: handle)
  }

  func signalEverything(_ signal: JobSignal, sparing spared: [CommandHandle]) {
    broadcasts.append((signal, clock.now()))
    let everything = processes.keys.sorted(by: { $0.serial < $1.serial })
    switch signal {
    case .stop:
      // As a process group is: one stopped already is stopped again, and continued with the rest.
      stoppedByBroadcast = everything.filter { !spared.contains($0) && processes[$0]?.isRunning == true }
      for handle in stoppedByBroadcast { deliver(.stop, to: handle) }
    case .continue:
      for handle in stoppedByBroadcast { deliver(.continue, to: handle) }
      stoppedByBroadcast = []
    case .interrupt, .terminate, .kill:
      for handle in everything where !spared.contains(handle) { deliver(signal, to: handle) }
    }
  }

  func endRun(grace: Double) {
    endRunGrace = grace
  }

  /// ``signals`` as `command signal@time` lines, e.g. `build terminate@5.0`.
  var signalLines: [String] {
    signals.map { "\($0.command) \($0.signal)@\($0.time)" }
  }

  /// The work orders of the job's commands (not its completion), in the order started.
  func attemptOrders(of job: JobID) -> [WorkOrder] {
    orders.filter { $0.work.job == job && $0.work.purpose != .completion }
  }

  /// The work orders of the job's completion command.
  func completionOrders(of job: JobID) -> [WorkOrder] {
    orders.filter { $0.work.job == job && $0.work.purpose == .completion }
  }

  /// Commands running now, by text, in start order.
  var running: [String] {
    processes.filter(\.value.isRunning).sorted { $0.key.serial < $1.key.serial }.map(\.value.command)
  }

  /// Commands stopped now, by text, in start order.
  var stopped: [String] {
    processes.filter { $0.value.stoppedWithTimeLeft != nil }.sorted { $0.key.serial < $1.key.serial }
      .map(\.value.command)
  }

  /// Commands whose group still has a process (running, or left behind), by text.
  var liveGroups: [String] {
    processes.filter { $0.value.isRunning || $0.value.leftoverAlive }.sorted { $0.key.serial < $1.key.serial }
      .map(\.value.command)
  }

  /// The handle the events show for the `index`th command started with `command`'s text.
  func handle(of command: String, index: Int = 0) -> CommandHandle? {
    processes.filter { $0.value.command == command }.map(\.key).sorted { $0.serial < $1.serial }
      .dropFirst(index).first
  }

  private func nextScript(for command: String) -> FakeCommand {
    if let next = nextScripts[command], !next.isEmpty {
      nextScripts[command] = Array(next.dropFirst())
      return next[0]
    }
    return scripts[command] ?? FakeCommand()
  }

  private func deliver(_ signal: JobSignal, to handle: CommandHandle) {
    guard let process = processes[handle] else { return }
    switch signal {
    case .kill:
      processes[handle]?.leftoverAlive = false
      processes[handle]?.stoppedWithTimeLeft = nil
      if process.isRunning { exitSoon(handle, .signalled(9), after: 0) }
    case .interrupt, .terminate:
      guard process.isRunning else { return }
      guard process.stoppedWithTimeLeft == nil else {
        processes[handle]?.pendingSignals.append(signal)
        return
      }
      let number: Int32 = signal == .interrupt ? 2 : 15
      switch process.script.onSignal {
      case .dies: exitSoon(handle, .signalled(number), after: 0)
      case .ignores: break
      case .exits(let seconds, let termination): exitSoon(handle, termination, after: seconds)
      }
    case .stop:
      guard process.isRunning, process.stoppedWithTimeLeft == nil, let exit = process.exit else { return }
      if let timer = process.exitTimer { clock.cancelTimer(timer) }
      processes[handle]?.exitTimer = nil
      processes[handle]?.stoppedWithTimeLeft = max(0, exit.time - clock.now())
    case .continue:
      guard let timeLeft = process.stoppedWithTimeLeft, let exit = process.exit else { return }
      processes[handle]?.stoppedWithTimeLeft = nil
      exitSoon(handle, exit.termination, after: timeLeft)
      let pending = process.pendingSignals
      processes[handle]?.pendingSignals = []
      for signal in pending { deliver(signal, to: handle) }
    }
  }

  /// Sets the command to exit `seconds` from now (if not stopped meanwhile).
  private func exitSoon(_ handle: CommandHandle, _ termination: Termination, after seconds: Double) {
    if let timer = processes[handle]?.exitTimer { clock.cancelTimer(timer) }
    processes[handle]?.exit = (clock.now() + seconds, termination)
    processes[handle]?.exitTimer = clock.schedule(after: seconds) { [unowned self] in exit(handle, termination) }
  }

  private func exit(_ handle: CommandHandle, _ termination: Termination) {
    guard let process = processes[handle], process.isRunning else { return }
    processes[handle]?.isRunning = false
    processes[handle]?.exitTimer = nil
    processes[handle]?.exit = nil
    if process.script.leavesProcessBehind, termination != .signalled(9) { processes[handle]?.leftoverAlive = true }
    reportHandler?(.exited(process.work, handle, termination, process.script.usage))
  }
}
