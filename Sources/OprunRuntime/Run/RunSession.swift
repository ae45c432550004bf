import Glibc
import OprunCore

/// One run from its first event to its last: sinks and reporters wired to the bus, the
/// engine and executor on one event loop, signals trapped, and the ending reported.
final class RunSession {
  let graph: JobGraph
  let configuration: RunConfiguration
  let loop = EventLoop()
  let startTime: Double

  init(graph: JobGraph, configuration: RunConfiguration) {
    self.graph = graph
    self.configuration = configuration
    self.startTime = loop.now()
  }

  func run() -> Int32 {
    let loop = self.loop
    let start = startTime
    let clock = { loop.now() - start }
    let bus = EventBus(clock: clock)
    let output = OutputFlow(loop: loop)
    let eventsToStandardOutput = configuration.eventsPath == "-"
    let humanFD: Int32 = eventsToStandardOutput ? 2 : 1
    let humanOut = output.sink(fileDescriptor: humanFD, lineBuffered: Terminal.isTerminal(humanFD))
    let humanErr = output.sink(fileDescriptor: 2, lineBuffered: true)
    let human = HumanReporter(graph: graph, options: humanOptions(humanFD: humanFD), out: humanOut, err: humanErr)
    bus.add(human)
    if let path = configuration.eventsPath {
      guard let sink = openSink(path, standardOutput: eventsToStandardOutput, output) else {
        return failToOpen(path)
      }
      bus.add(EventStreamWriter(graph: graph, sink: sink))
    }
    if let path = configuration.tracePath {
      guard let sink = openSink(path, standardOutput: false, output) else { return failToOpen(path) }
      bus.add(TraceWriter(graph: graph, sink: sink))
    }

    let policy = configuration.failurePolicy ?? graph.manifest.onFailure
    let engine = QueueEngine(graph: graph, failurePolicy: policy, clock: clock)
    engine.addObserver(bus)
    let executor = Executor(graph: graph, engine: engine, loop: loop, bus: bus, configuration: configuration)
    bus.add(executor)
    output.onReaderClosed = { [unowned executor] in executor.handle(signal: SIGPIPE) }
    output.onWarning = { bus.publish(.warning($0)) }
    do {
      executor.trap = try SignalTrap(loop: loop) { [unowned executor] signal in
        if !output.takesSignalWhileDraining(signal) { executor.handle(signal: signal) }
      }
    } catch {
      bus.publish(.warning("cannot trap signals: \(error)"))
    }

    bus.publish(.runStarted(queues: graph.queues, jobs: graph.jobs.count, run: RunID.make(), control: nil))
    executor.run()
    let status = executor.receivedSignal.map { 128 + $0 } ?? engine.exitStatus()
    bus.publish(.runFinished(exitCode: status, counts: engine.counts))
    output.drain()
    if let signal = executor.receivedSignal ?? output.endingSignal, let trap = executor.trap {
      trap.restoreDefaultsAndRaise(signal)
    }
    executor.trap?.uninstall()
    return status
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

  private func openSink(_ path: String, standardOutput: Bool, _ output: OutputFlow) -> OutputSink? {
    if standardOutput { return output.sink(fileDescriptor: 1, lineBuffered: true) }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    return fd < 0 ? nil : output.sink(fileDescriptor: fd, path: path, lineBuffered: true)
  }

  private func failToOpen(_ path: String) -> Int32 {
    LocalRun.writeAll(2, "oprun: error: cannot write '\(path)': \(String(cString: strerror(errno)))\n")
    return ExitStatus.usage
  }
}
