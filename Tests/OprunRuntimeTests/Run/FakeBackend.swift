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
  /// It leaves a process behind in its group when it exits, which only a kill ends.
  var leavesProcessBehind = false
}

/// A backend without processes: commands follow their ``FakeCommand`` script on a
/// ``ManualClock``, and every start and signal is recorded. Reports are made only from the
/// clock's timers, never from inside `start` or `signal`, as a real backend's come from its
/// event loop.
final class FakeBackend: JobBackend {
  var reportHandler: ((BackendReport) -> Void)?
  let clock: ManualClock
  /// Scripts by command text; a command not listed succeeds after a second.
  var scripts: [String: FakeCommand] = [:]

  /// Every work order, in the order started.
  private(set) var orders: [WorkOrder] = []
  /// Every signal sent to a command, with the command's text and the time.
  private(set) var signals: [(command: String, signal: JobSignal, time: Double)] = []
  /// Signals sent to everything at once, with the time.
  private(set) var broadcasts: [(signal: JobSignal, time: Double)] = []
  /// Whether ``endRun(grace:)`` was called.
  private(set) var runEnded = false

  private struct Process {
    var command: String
    var work: WorkKey
    var script: FakeCommand
    var isRunning = true
    /// A process left behind in the group, alive until killed.
    var leftoverAlive = false
    var exitTimer: TimerID?
  }

  private var processes: [CommandHandle: Process] = [:]
  private var nextSerial: UInt64 = 0

  init(clock: ManualClock) {
    self.clock = clock
  }

  func start(_ work: WorkOrder) -> [Result<CommandHandle, StartFailure>] {
    orders.append(work)
    return work.commands.map { command in
      let script = scripts[command] ?? FakeCommand()
      if let reason = script.startFailure { return .failure(StartFailure(reason)) }
      nextSerial += 1
      let handle = CommandHandle(id: Int32(1000 + nextSerial), serial: nextSerial)
      processes[handle] = Process(command: command, work: work.work, script: script)
      if !script.output.isEmpty {
        clock.schedule(after: 0) { [unowned self] in
          for line in script.output { reportHandler?(.output(work.work, .stdout, Array((line + "\n").utf8))) }
        }
      }
      processes[handle]?.exitTimer = clock.schedule(after: script.duration) { [unowned self] in
        exit(handle, script.termination)
      }
      return .success(handle)
    }
  }

  func signal(_ handle: CommandHandle, _ signal: JobSignal) {
    guard let process = processes[handle] else { return }
    signals.append((process.command, signal, clock.now()))
    deliver(signal, to: handle)
  }

  func signalEverything(_ signal: JobSignal) {
    broadcasts.append((signal, clock.now()))
    for handle in processes.keys.sorted(by: { $0.serial < $1.serial }) { deliver(signal, to: handle) }
  }

  func endRun(grace: Double) {
    runEnded = true
  }

  /// Commands running now, by text, in start order.
  var running: [String] {
    processes.filter(\.value.isRunning).sorted { $0.key.serial < $1.key.serial }.map(\.value.command)
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

  private func deliver(_ signal: JobSignal, to handle: CommandHandle) {
    guard let process = processes[handle] else { return }
    switch signal {
    case .kill:
      processes[handle]?.leftoverAlive = false
      if process.isRunning { exitSoon(handle, .signalled(9), after: 0) }
    case .interrupt, .terminate:
      guard process.isRunning else { return }
      let number: Int32 = signal == .interrupt ? 2 : 15
      switch process.script.onSignal {
      case .dies: exitSoon(handle, .signalled(number), after: 0)
      case .ignores: break
      case .exits(let seconds, let termination): exitSoon(handle, termination, after: seconds)
      }
    case .stop, .continue:
      break
    }
  }

  private func exitSoon(_ handle: CommandHandle, _ termination: Termination, after seconds: Double) {
    if let timer = processes[handle]?.exitTimer { clock.cancelTimer(timer) }
    processes[handle]?.exitTimer = clock.schedule(after: seconds) { [unowned self] in exit(handle, termination) }
  }

  private func exit(_ handle: CommandHandle, _ termination: Termination) {
    guard let process = processes[handle], process.isRunning else { return }
    processes[handle]?.isRunning = false
    processes[handle]?.exitTimer = nil
    if process.script.leavesProcessBehind, termination != .signalled(9) { processes[handle]?.leftoverAlive = true }
    reportHandler?(.exited(process.work, handle, termination))
  }
}
