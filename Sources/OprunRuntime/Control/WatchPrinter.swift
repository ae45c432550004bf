import OprunCore

/// Shows a watch stream to a person as the run shows itself (`oprun ctl watch`): each line
/// read back into its event (``EventLine``) and handed to a ``HumanReporter`` over the run's
/// own graph with the run's own options, so that its lines are the run's lines.
///
/// The one event it leaves out is the `control` event of its own `watch` request, which the
/// run recorded before the stream began: the `watch` whose `peer_pid` is `ownPID`. The
/// stream keeps it, as it keeps every request; only the watcher, which knows its own pid,
/// can tell it from another watcher's.
///
/// Without a graph (the run's manifest could not be loaded), or for an event this oprun
/// cannot read back (a newer run's, or one naming a job the manifest has not got), the line
/// is shown plainly: its time, its event, its job or queue, then its other fields.
public final class WatchPrinter {
  private var names: GraphEventNames?
  private let reporter: HumanReporter?
  private let timeline: TimelineFormatter
  private let out: OutputSink
  private let ownPID: Int32?

  /// A printer writing to `out` and `err`, with the run's `graph` when it could be loaded;
  /// `ownPID` is the watcher's process, whose `watch` request is not shown.
  public init(graph: JobGraph?, options: HumanOptions, out: OutputSink, err: OutputSink, ownPID: Int32? = nil) {
    self.out = out
    self.ownPID = ownPID
    names = graph.map(GraphEventNames.init)
    reporter = graph.map { HumanReporter(graph: $0, options: options, out: out, err: err) }
    timeline = TimelineFormatter(
      graph: graph ?? JobGraph(manifest: Manifest(path: "", name: ""), queues: [], jobs: []), options: options)
  }

  /// Shows one line of the stream.
  public func show(_ value: JSONValue) {
    if isOwnWatch(value) { return }
    if names != nil, let reporter, let event = EventLine.event(from: value, names: &names!) {
      reporter.observe(event)
      return
    }
    showPlainly(value)
  }

  private func isOwnWatch(_ value: JSONValue) -> Bool {
    guard let ownPID, value["event"]?.stringValue == "control", value["command"]?.stringValue == "watch" else {
      return false
    }
    return value["peer_pid"]?.intValue == Int(ownPID)
  }

  private func showPlainly(_ value: JSONValue) {
    let event = value["event"]?.stringValue ?? "?"
    let name = value["job"]?.stringValue ?? value["queue"]?.stringValue ?? ""
    if event == "output", let text = value["text"]?.stringValue {
      for line in LineSplitter.lines(of: Array(text.utf8)) {
        out.write(name + " |" + (line.isEmpty ? "" : " " + String(decoding: line, as: UTF8.self)) + "\n")
      }
    } else if event == "output-skipped", let lines = value["lines"]?.intValue, let bytes = value["bytes"]?.intValue {
      out.write(name + " | … \(lines) line\(lines == 1 ? "" : "s") (\(bytes) bytes) printed while nobody watched, not kept\n")
    } else {
      let skipped: Set<String> = ["t", "event", "job", "queue"]
      let details = (value.objectValue ?? []).filter { !skipped.contains($0.key) }.map { member in
        member.key + " " + ControlText.cell(member.value)
      }
      let time = value["t"]?.doubleValue ?? 0
      let detail = details.joined(separator: " · ")
      out.write(name.isEmpty ? timeline.line(at: time, event, detail) : timeline.line(at: time, event, name, detail))
    }
    out.flush()
  }
}
