import Glibc
import OprunCore

/// One local run from its first event to its last: sinks and reporters observing the
/// driver, the local backend on one event loop, signals trapped and turned into commands,
/// and the ending reported.
final class RunSession {
  let graph: JobGraph
  let configuration: RunConfiguration
  let loop = EventLoop()

  init(graph: JobGraph, configuration: RunConfiguration) {
    self.graph = graph
    self.configuration = configuration
  }

  func run() -> Int32 {
    let backend = LocalBackend(
      loop: loop, framing: configuration.outputMode == .raw ? .chunks : .lines,
      environment: JobEnvironment(inherited: JobEnvironment.inherited()))
    let driver = RunDriver(
      graph: graph, failurePolicy: configuration.failurePolicy ?? graph.manifest.onFailure,
      grace: configuration.grace, backend: backend, clock: loop)
    var sinks: [OutputSink] = []
    let eventsToStandardOutput = configuration.eventsPath == "-"
    let humanFD: Int32 = eventsToStandardOutput ? 2 : 1
    let humanOut = OutputSink(fileDescriptor: humanFD, lineBuffered: Terminal.isTerminal(humanFD))
    let humanErr = OutputSink.standardError()
    sinks += [humanOut, humanErr]
    driver.addObserver(
      HumanReporter(graph: graph, options: humanOptions(humanFD: humanFD), out: humanOut, err: humanErr))
    if let path = configuration.eventsPath {
      guard let sink = openSink(path, standardOutput: eventsToStandardOutput) else {
        return failToOpen(path, humanErr)
      }
      sinks.append(sink)
      driver.addObserver(EventStreamWriter(graph: graph, sink: sink))
    }
    if let path = configuration.tracePath {
      guard let sink = openSink(path, standardOutput: false) else { return failToOpen(path, humanErr) }
      sinks.append(sink)
      driver.addObserver(TraceWriter(graph: graph, sink: sink))
    }

    var trap: SignalTrap?
    do {
      trap = try SignalTrap(loop: loop) { signal in
        Self.handle(signal, driver: driver, stoppingSelf: { trap?.stopSelf() })
      }
    } catch {
      driver.warn("cannot trap signals: \(error)")
    }

    driver.start(run: RunID.make())
    loop.run { driver.isFinished }
    let status = driver.finish()
    for sink in sinks { sink.flush() }
    if let signal = driver.endingSignal, let trap {
      trap.restoreDefaultsAndRaise(signal)
    }
    trap?.uninstall()
    return status
  }

  /// What oprun does with the signals it traps (SPEC §3.4): each becomes a command.
  /// Ctrl-Z stops the jobs, then oprun itself; when the shell continues oprun (`fg`),
  /// the jobs continue too (SIGCONT reaches the trap as well).
  static func handle(_ signal: Int32, driver: RunDriver, stoppingSelf stopSelf: () -> Void) {
    switch signal {
    case SIGINT:
      driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    case SIGTERM, SIGHUP:
      driver.apply(.cancelRun(reason: .terminate, endingSignal: signal))
    case SIGUSR1:
      driver.apply(.toggleSuspension)
    case SIGTSTP:
      driver.apply(.stopJobs)
      stopSelf()
      driver.apply(.continueJobs)
    case SIGCONT:
      driver.apply(.continueJobs)
    default:
      break
    }
  }

  private func humanOptions(humanFD: Int32) -> HumanOptions {
    let noColor = getenv("NO_COLOR").map { String(cString: $0) }
    let color =
      Terminal.isTerminal(humanFD) && (noColor == nil || noColor == "")
      && getenv("TERM").map { String(cString: $0) } != "dumb"
    let githubActions = getenv("GITHUB_ACTIONS").map { String(cString: $0) } == "true"
    return HumanOptions(
      outputMode: configuration.outputMode, color: color, verbosity: configuration.verbosity,
      githubActions: githubActions)
  }

  private func openSink(_ path: String, standardOutput: Bool) -> OutputSink? {
    if standardOutput { return OutputSink(fileDescriptor: 1, lineBuffered: true) }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    return fd < 0 ? nil : OutputSink(fileDescriptor: fd, lineBuffered: true)
  }

  private func failToOpen(_ path: String, _ err: OutputSink) -> Int32 {
    err.write("oprun: error: cannot write '\(path)': \(String(cString: strerror(errno)))\n")
    err.flush()
    return ExitStatus.usage
  }
}
