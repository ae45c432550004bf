import Glibc
import OprunCore

/// A run from the command line: manifest → plan → driver → events → reporters.
public enum RunCommandLine {
  /// Runs `configuration` to the end and returns oprun's exit status; a run ended by a
  /// signal ends oprun by that signal instead, once everything is reported.
  public static func execute(_ configuration: RunConfiguration) -> Int32 {
    if let warning = configuration.argumentWarning { writeAll(2, "oprun: warning: \(warning)\n") }
    let prepared: PreparedRun
    switch RunPlan.prepare(configuration) {
    case .success(let run): prepared = run
    case .failure(let message):
      writeAll(2, message)
      if let signal = message.endingSignal { SignalTrap.end(by: signal) }
      return ExitStatus.usage
    }
    let plan = prepared.plan
    guard !configuration.dryRun else {
      for warning in plan.warnings { writeAll(2, "oprun: warning: \(warning)\n") }
      writeAll(1, plan.dryRunText(hasher: prepared.hasher, manifestPath: configuration.manifestPath))
      return ExitStatus.success
    }
    if let delay = configuration.watchDelay { return watch(prepared, configuration: configuration, delay: delay) }
    return RunSession(plan: plan, configuration: configuration, hasher: prepared.hasher).run()
  }

  /// `--watch`: the first run, then a cycle after each change (SPEC §13); a usage error when
  /// no selected job declares inputs or reads a dotenv file, as nothing could start a cycle.
  private static func watch(_ prepared: PreparedRun, configuration: RunConfiguration, delay: Double) -> Int32 {
    let graph = prepared.plan.graph
    let readsDotenv =
      !graph.manifest.dotenv.isEmpty || !graph.manifest.includedDotenvFiles.isEmpty
      || graph.manifest.jobs.contains { !$0.dotenv.isEmpty }
    guard readsDotenv || graph.jobs.contains(where: { !$0.inputs.isEmpty }) else {
      let jobs = configuration.targets.isEmpty ? "no job" : "no selected job"
      writeAll(
        2,
        "oprun: error: --watch runs jobs again when their inputs change, but \(jobs) declares `inputs`: "
          + "add `inputs: [...]` (the files a job reads) to a job, or select one that has them\n")
      return ExitStatus.usage
    }
    do throws(SystemError) {
      return try WatchLoop(configuration: configuration, graph: graph, delay: delay).run(first: prepared)
    } catch {
      writeAll(2, "oprun: error: --watch cannot watch files: \(error)\n")
      return ExitStatus.failure
    }
  }

  /// The manifest's validated graph, with `-j` and the named targets applied, or the text
  /// of every problem.
  static func loadGraph(_ configuration: RunConfiguration) -> Result<JobGraph, Message> {
    let path = configuration.manifestPath
    var graph: JobGraph
    switch ManifestFile.graph(
      path: path, variables: configuration.variables, defaultMaxConcurrent: CPUCount.available)
    {
    case .success(let loaded): graph = loaded
    case .failure(let errors):
      return .failure(Message(errors.text))
    }
    if let limit = configuration.maxConcurrent {
      for index in graph.queues.indices { graph.queues[index].maxConcurrent = limit }
    }
    return selecting(configuration.targets, in: graph)
  }

  /// The jobs called `targets` and their dependencies (every job when there are none), or
  /// the error for the first unknown name.
  static func selecting(_ targets: [String], in graph: JobGraph) -> Result<JobGraph, Message> {
    guard !targets.isEmpty else { return .success(graph) }
    do throws(TargetError) {
      return .success(try graph.restricted(to: targets))
    } catch {
      return .failure(Message("oprun: error: \(error)\n"))
    }
  }

  /// What to tell the user before ending: with exit status 2, or by `endingSignal` when a
  /// cancelling signal came before the run began.
  struct Message: Error {
    var text: String
    var endingSignal: Int32?

    init(_ text: String, endingSignal: Int32? = nil) {
      self.text = text
      self.endingSignal = endingSignal
    }
  }

  static func writeAll(_ fd: Int32, _ message: Message) { writeAll(fd, message.text) }

  static func writeAll(_ fd: Int32, _ text: String) {
    let sink = OutputSink(fileDescriptor: fd)
    sink.write(text)
    sink.flush()
  }
}
