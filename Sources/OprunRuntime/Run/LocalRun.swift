import Glibc
import OprunCore

/// A run on this machine: manifest → graph → queues → processes → events → reporters.
public enum LocalRun {
  /// Runs `configuration` to the end and returns oprun's exit status; a run ended by a
  /// signal ends oprun by that signal instead, once everything is reported.
  public static func execute(_ configuration: RunConfiguration) -> Int32 {
    // A .oprun/ another user controls is not used: the run goes on as with --no-journal (SPEC §9).
    let state = StateFolder(manifestPath: configuration.manifestPath).open()
    let usesState = (try? state.get()) != nil
    var configuration = configuration
    if !usesState { (configuration.keepsJournal, configuration.resume) = (false, false) }
    let journals = JournalFolder(manifestPath: configuration.manifestPath)
    // The journal is read while the manifest is loaded: they do not depend on each other.
    // --force wins over --resume: every selected job runs.
    let resume = configuration.resume && !configuration.force
    let reading = resume ? journals.beginResumeReadingInBackground() : nil
    var graph: JobGraph
    switch loadGraph(configuration) {
    case .success(let loaded): graph = loaded
    case .failure(let message):
      writeAll(2, message)
      return ExitStatus.usage
    }
    let tracked = configuration.backend == .local ? Set(graph.jobs.filter(\.tracksFiles).map(\.name)) : []
    let hasher =
      tracked.isEmpty
      ? nil : usesState ? FileHasher.forManifest(at: configuration.manifestPath) : FileHasher(cacheFolder: nil)
    if let hasher, !configuration.force, !resume { hasher.prefetchFirstChecks(of: graph) }
    let fingerprints =
      configuration.keepsJournal || resume || !tracked.isEmpty ? graph.fingerprints() : nil
    var resumePlan: ResumePlan?
    var warnings = graph.manifestWarningLines
    if case .failure(let refusal) = state { warnings.append(refusal.description) }
    var fileRecords: [String: JournalRecord] = [:]
    if !tracked.isEmpty, usesState {
      let recordWarnings: [String]
      (fileRecords, recordWarnings) = journals.newestRecords(of: tracked)
      warnings += recordWarnings
    }
    if let reading, let fingerprints {
      let resumeWarnings: [String]
      (resumePlan, resumeWarnings) = journals.resumePlan(
        for: graph, fingerprints: fingerprints, reading: reading.value)
      warnings += resumeWarnings
    }
    let criticalPath =
      configuration.schedule == .criticalPath
      ? CriticalPath(
        graph: graph, durations: (usesState ? journals.pastDurations() : PastDurations()).durations(of: graph)) : nil
    if configuration.dryRun {
      for warning in warnings { writeAll(2, "oprun: warning: \(warning)\n") }
      let plan = graph.plan(criticalPath: criticalPath)
      let filePlan = hasher.map { hasher in
        FilePlan(
          graph: graph, fingerprints: fingerprints ?? graph.fingerprints(), force: configuration.force,
          resumePlan: resumePlan, records: fileRecords, manifestPath: configuration.manifestPath, hasher: hasher)
      }
      writeAll(
        1, PlanText.render(plan, of: graph, resumePlan: resumePlan, filePlan: filePlan, criticalPath: criticalPath))
      return ExitStatus.success
    }
    if configuration.backend == .slurm {
      if case .failure(let refusal) = state {
        writeAll(2, "oprun: error: --backend slurm keeps the jobs' output in .oprun/: \(refusal.problem)\n")
        return ExitStatus.usage
      }
      if let problem = SlurmPreflight.problem() {
        writeAll(2, "oprun: error: \(problem)\n")
        return ExitStatus.usage
      }
      let fitWarnings: [String]
      (graph, fitWarnings) = SlurmPreflight.fitting(graph)
      warnings += fitWarnings
    }
    let descriptorWarning: String?
    (graph, descriptorWarning) = DescriptorBudget.raised(toRun: graph).fitting(graph)
    if let descriptorWarning { warnings.append(descriptorWarning) }
    return RunSession(
      graph: graph, configuration: configuration, fingerprints: fingerprints, resumePlan: resumePlan,
      fileRecords: hasher == nil ? nil : fileRecords, hasher: hasher, criticalPath: criticalPath, warnings: warnings
    ).run()
  }

  /// The manifest's validated graph, with `-j` and the named targets applied, or the text
  /// of every problem.
  static func loadGraph(_ configuration: RunConfiguration) -> Result<JobGraph, Message> {
    let path = configuration.manifestPath
    var graph: JobGraph
    switch ManifestFile.graph(path: path, defaultMaxConcurrent: CPUCount.available) {
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

  struct Message: Error {
    var text: String
    init(_ text: String) { self.text = text }
  }

  static func writeAll(_ fd: Int32, _ message: Message) { writeAll(fd, message.text) }

  static func writeAll(_ fd: Int32, _ text: String) {
    let sink = OutputSink(fileDescriptor: fd)
    sink.write(text)
    sink.flush()
  }
}
