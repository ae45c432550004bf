import Glibc
import OprunCore

/// How `oprun graph` writes the graph.
public enum GraphFormat: String, Sendable, CaseIterable {
  /// Graphviz: `oprun graph | dot -Tsvg > graph.svg`.
  case dot
  /// A mermaid flowchart, which GitHub and GitLab draw in markdown.
  case mermaid
}

/// `oprun graph` (SPEC §4): the job graph of a manifest, or of the jobs a run would select,
/// on standard output, coloured by the outcomes of a recorded run when one is given. Says
/// how it went as an exit status: 0, or 2 for a manifest, a job name or an events file it
/// cannot use.
public enum GraphCommandLine {
  /// An events file larger than this is refused rather than read into memory.
  static let maximumEventsSize = 1 << 30

  /// Draws the manifest and jobs `words` name (`[MANIFEST] [JOB...]`, read as a run reads them).
  public static func execute(words: [String], format: GraphFormat, eventsPath: String?) -> Int32 {
    let arguments = ManifestArguments(words)
    if let warning = arguments.ambiguity { warn(warning) }
    let whole: JobGraph
    var configuration = RunConfiguration(manifestPath: arguments.manifestPath)
    configuration.variables = arguments.variables
    switch RunCommandLine.loadGraph(configuration) {
    case .success(let loaded): whole = loaded
    case .failure(let message): return fail(message)
    }
    let graph: JobGraph
    switch RunCommandLine.selecting(arguments.targets, in: whole) {
    case .success(let selected): graph = selected
    case .failure(let message): return fail(message)
    }
    var run: RecordedRun?
    if let eventsPath {
      switch readRun(eventsPath, of: whole) {
      case .success(let recorded): run = recorded
      case .failure(let message): return fail(message)
      }
    }
    let drawing = GraphDrawing(graph: graph, run: run)
    RunCommandLine.writeAll(STDOUT_FILENO, format == .dot ? DOTText.render(drawing) : MermaidText.render(drawing))
    return ExitStatus.success
  }

  /// The run recorded at `path`, after a warning for what in it cannot be shown: lines that
  /// are no events, jobs `graph` does not have.
  static func readRun(_ path: String, of graph: JobGraph) -> Result<RecordedRun, RunCommandLine.Message> {
    let shownPath = DisplayText.escaped(path)
    let bytes: [UInt8]
    switch FileContents.read(path: path, limit: maximumEventsSize) {
    case .success(let read): bytes = read
    case .failure(let failure):
      return .failure(error("cannot read the events file '\(shownPath)': \(failure.message)"))
    }
    let run = RecordedRun(eventLines: bytes)
    if !run.unreadableLines.isEmpty {
      guard run.run != nil || !run.jobs.isEmpty else {
        return .failure(error("'\(shownPath)' holds no oprun events: give the file a run wrote with --events"))
      }
      let count = run.unreadableLines.count
      warn(
        "skipped \(counted(count, "line")) of '\(shownPath)' that \(count == 1 ? "is not an event" : "are not events")")
    }
    if let warning = unknownJobsWarning(run, graph: graph, path: shownPath) { warn(warning) }
    return .success(run)
  }

  /// One line naming the jobs of the run that the manifest does not have (a few of them).
  static func unknownJobsWarning(_ run: RecordedRun, graph: JobGraph, path: String) -> String? {
    let known = Set(graph.jobs.lazy.map(\.name))
    let unknown = run.jobs.lazy.map(\.name).filter { !known.contains($0) }
    guard let first = unknown.first else { return nil }
    let listed = unknown.prefix(3).map { "'\(DisplayText.escaped($0))'" }.joined(separator: ", ")
    let more = unknown.count > 3 ? " and \(unknown.count - 3) more" : ""
    let subject = unknown.count == 1 ? "job '\(DisplayText.escaped(first))' of" : "jobs \(listed)\(more) of"
    return "\(subject) the run in '\(path)' \(unknown.count == 1 ? "is" : "are") not in the manifest: not shown"
  }

  private static func error(_ message: String) -> RunCommandLine.Message {
    RunCommandLine.Message("oprun: error: \(message)\n")
  }

  private static func warn(_ message: String) {
    RunCommandLine.writeAll(STDERR_FILENO, "oprun: warning: " + message + "\n")
  }

  private static func fail(_ message: RunCommandLine.Message) -> Int32 {
    RunCommandLine.writeAll(STDERR_FILENO, message)
    return ExitStatus.usage
  }
}
