import OprunCore

/// Shows a watch stream to a person as the run shows itself (`oprun ctl watch`): each line
/// read back into its event and handed to a ``HumanReporter`` over the run's own graph.
///
/// Without a graph (the run's manifest could not be loaded), or for an event this oprun
/// cannot read back (a newer run's, or one naming a job the manifest has not got), the line
/// is shown plainly: its time, its event, its job or queue, then its other fields.
public final class WatchPrinter {
  private let graph: JobGraph?
  private let reporter: HumanReporter?
  private let timeline: TimelineFormatter
  private let out: OutputSink

  /// A printer writing to `out` and `err`, with the run's `graph` when it could be loaded.
  public init(graph: JobGraph?, options: HumanOptions, out: OutputSink, err: OutputSink) {
    self.graph = graph
    self.out = out
    reporter = graph.map { HumanReporter(graph: $0, options: options, out: out, err: err) }
    timeline = TimelineFormatter(
      graph: graph ?? JobGraph(manifest: Manifest(path: "", name: ""), queues: [], jobs: []), options: options)
  }

  /// Shows one line of the stream.
  public func show(_ value: JSONValue) {
    if let graph, let reporter, let event = WatchedEvent.decode(value, graph: graph) {
      reporter.observe(event)
      return
    }
    showPlainly(value)
  }

  private func showPlainly(_ value: JSONValue) {
    let event = value["event"]?.stringValue ?? "?"
    let name = value["job"]?.stringValue ?? value["queue"]?.stringValue ?? ""
    if event == "output", let text = value["text"]?.stringValue {
      for line in LineSplitter.lines(of: Array(text.utf8)) {
        out.write(name + " |" + (line.isEmpty ? "" : " " + String(decoding: line, as: UTF8.self)) + "\n")
      }
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
