import Glibc
import OprunCore

/// One `oprun ctl` call, as the command line parsed it.
public struct ControlInvocation: Sendable {
  public var selection: ControlClient.Selection
  /// `list`, or one of ``ControlWire/commands``.
  public var command: String
  public var args: [String]
  /// Print the answer's data as JSON (`list`, `status`, `watch`).
  public var json: Bool

  public init(selection: ControlClient.Selection, command: String, args: [String] = [], json: Bool = false) {
    self.selection = selection
    self.command = command
    self.args = args
    self.json = json
  }
}

/// `oprun ctl` (SPEC §8): chooses the run, sends one request, prints the answer, and says
/// how it went as an exit status: 0 when the run accepted the request (`list` always), 1
/// when it refused it or could not be asked, 2 when no run could be chosen.
public enum ControlCommandLine {
  public static func execute(_ invocation: ControlInvocation) -> Int32 {
    let out = OutputSink(fileDescriptor: STDOUT_FILENO, lineBuffered: true)
    defer { out.flush() }
    if invocation.command == "list" { return list(json: invocation.json, out) }
    let run: ControlClient.LiveRun
    switch ControlClient.choose(invocation.selection) {
    case .success(let chosen): run = chosen
    case .failure(let failure): return fail("\(failure)", ExitStatus.usage)
    }
    if invocation.command == "watch" {
      return watch(run, json: invocation.json, OutputSink(fileDescriptor: STDOUT_FILENO, capacity: 64 << 10))
    }
    let answer: ControlClientAnswer
    switch ControlClient.connect(run.socket).flatMap({ $0.request(invocation.command, invocation.args) }) {
    case .success(let received): answer = received
    case .failure(let failure): return fail("pid \(run.pid): \(failure)", ExitStatus.failure)
    }
    guard answer.ok else { return fail(answer.error ?? "refused", ExitStatus.failure) }
    if invocation.json {
      out.write(answer.dataObject.encoded + [UInt8(ascii: "\n")])
    } else if invocation.command == "status" {
      out.write(ControlText.status(answer.dataObject))
    } else {
      out.write("ok\n")
    }
    return ExitStatus.success
  }

  /// Every run in progress with its `run` object (`{"pid": N}` alone for a run that does
  /// not say more in time).
  private static func list(json: Bool, _ out: OutputSink) -> Int32 {
    let runs = ControlClient.liveRuns().map { run in (run.pid, ControlClient.runObject(of: run)) }
    if json {
      let objects = runs.map { pid, object in object ?? .object([("pid", .number(String(pid)))]) }
      out.write(JSONValue.array(objects).encoded + [UInt8(ascii: "\n")])
    } else {
      out.write(ControlText.list(runs))
    }
    return ExitStatus.success
  }

  /// Prints the stream until the run's last event: each line as it came with `json`, else
  /// as the run's own human lines.
  private static func watch(_ run: ControlClient.LiveRun, json: Bool, _ out: OutputSink) -> Int32 {
    defer { out.flush() }
    let printer = json ? nil : humanPrinter(for: run, out)
    let client: ControlClient
    switch ControlClient.connect(run.socket) {
    case .success(let connected): client = connected
    case .failure(let failure): return fail("pid \(run.pid): \(failure)", ExitStatus.failure)
    }
    switch client.request("watch", []) {
    case .failure(let failure): return fail("pid \(run.pid): \(failure)", ExitStatus.failure)
    case .success(let answer) where !answer.ok: return fail(answer.error ?? "refused", ExitStatus.failure)
    case .success: break
    }
    var lastEvent: String?
    reading: while true {
      let line: [UInt8]
      switch client.nextLine() {
      case .success(let received?): line = received
      case .success(nil): break reading
      case .failure(let failure): return fail("pid \(run.pid): \(failure)", ExitStatus.failure)
      }
      lastEvent = eventName(of: line)
      if lastEvent == "watch-dropped" {
        // With --json the stream is printed as it came, its last line included.
        if printer == nil { out.write(line + [UInt8(ascii: "\n")]) }
        out.flush()
        return fail("the run dropped this watcher: it fell behind the run", ExitStatus.failure)
      }
      if let printer {
        if let value = try? JSONValue.parse(line).get() { printer.show(value) }
      } else {
        out.write(line + [UInt8(ascii: "\n")])
        // Written in batches, each as soon as no further line is waiting.
        if !client.hasLineWaiting { out.flush() }
      }
    }
    guard lastEvent == "run-finished" else {
      return fail("pid \(run.pid): the stream ended before the run did", ExitStatus.failure)
    }
    return ExitStatus.success
  }

  /// The `event` of a line the run wrote, found without parsing it all: the run's encoder
  /// writes `event` first, or right after `t`, so its first `"event":"` is the member.
  static func eventName(of line: [UInt8]) -> String? {
    let key = Array(#""event":""#.utf8)
    guard let start = line.firstRange(of: key)?.upperBound,
      let end = line[start...].firstIndex(of: UInt8(ascii: "\""))
    else { return nil }
    return String(decoding: line[start..<end], as: UTF8.self)
  }

  /// A printer over the run's own graph (its manifest, its targets) with the run's own
  /// options, as its ``RunDescription`` gives them; lines are shown plainly when there is none
  /// or the manifest no longer loads.
  private static func humanPrinter(for run: ControlClient.LiveRun, _ out: OutputSink) -> WatchPrinter {
    let description = run.description
    let graph = description.flatMap { description -> JobGraph? in
      guard
        let whole = try? ManifestFile.graph(
          path: description.manifest, variables: description.variables, defaultMaxConcurrent: 1
        ).get()
      else {
        return nil
      }
      return description.targets.isEmpty ? whole : try? whole.restricted(to: description.targets)
    }
    let noColor = ControlFolder.environment("NO_COLOR") != nil
    let color = Terminal.isTerminal(STDOUT_FILENO) && !noColor && ControlFolder.environment("TERM") != "dumb"
    let options = description?.humanOptions(color: color) ?? HumanOptions(color: color)
    let err = OutputSink(fileDescriptor: STDERR_FILENO, lineBuffered: true)
    return WatchPrinter(graph: graph, options: options, out: out, err: err, ownPID: getpid())
  }

  private static func fail(_ message: String, _ status: Int32) -> Int32 {
    let err = OutputSink(fileDescriptor: STDERR_FILENO)
    err.write("oprun: error: " + message + "\n")
    err.flush()
    return status
  }
}
