import Glibc
import OprunCore

/// A plan and what was opened to make it: the hasher of the manifest's files, when files
/// decide whether some job runs (its cache is saved when the run ends).
struct PreparedRun {
  var plan: RunPlan
  var hasher: FileHasher?
}

extension RunPlan {
  /// The plan of the run `configuration` asks for — the one place a run is set up — or the
  /// text of every problem (exit status 2), or of the signal that cut the cluster's check
  /// short. A real run (not `-n`) also fits the graph to its backend and to the descriptors
  /// the process may open.
  ///
  /// `loaded`, when given, is the graph to run instead of the manifest's file: under `--watch`,
  /// the last good manifest, while the file has errors.
  /// `looks`: a `--watch` cycle's, lent to every walk of the run.
  static func prepare(_ configuration: RunConfiguration, loaded: JobGraph? = nil, looks: WatchedLooks? = nil) -> Result<
    PreparedRun, RunCommandLine.Message
  > {
    // Before anything is read: another run's lock released after this is news to this run.
    let preparedAt = MonotonicClock.now()
    // A .oprun/ another user controls is not used: the run goes on as with --no-journal (SPEC §9).
    let state = StateFolder(manifestPath: configuration.manifestPath).open()
    let usesState = (try? state.get()) != nil
    var configuration = configuration
    if !usesState { (configuration.keepsJournal, configuration.resume) = (false, false) }
    let journals = JournalFolder(manifestPath: configuration.manifestPath)
    // --force wins over --resume: every selected job runs. The journal is read while the
    // manifest is loaded: they do not depend on each other.
    let resume = configuration.resume && !configuration.force
    let reading = resume ? journals.beginResumeReadingInBackground() : nil
    var graph: JobGraph
    switch loaded.map({ .success($0) }) ?? RunCommandLine.loadGraph(configuration) {
    case .success(let loaded): graph = loaded
    case .failure(let message): return .failure(message)
    }
    var warnings = graph.manifestWarningLines
    if case .failure(let refusal) = state { warnings.append(refusal.description) }
    if !configuration.dryRun {
      if configuration.backend == .slurm, case .failure(let refusal) = state {
        return .failure(
          RunCommandLine.Message(
            "oprun: error: --backend slurm keeps the jobs' output in .oprun/: \(refusal.problem)\n"))
      }
      switch fitted(graph, to: configuration.backend) {
      case .success(let fitted):
        graph = fitted.graph
        warnings += fitted.warnings
      case .failure(let message): return .failure(message)
      }
    }
    // Decided once, here: files decide only on a backend that shares this machine's files.
    let tracked =
      configuration.backend.capabilities.sharesFiles ? Set(graph.jobs.filter(\.tracksFiles).map(\.name)) : []
    let hasher =
      tracked.isEmpty
      ? nil : usesState ? FileHasher.forManifest(at: configuration.manifestPath) : FileHasher(cacheFolder: nil)
    // Under --resume too, and so in each --watch cycle: a job whose files decide is checked
    // whatever the journal says, and its walk is most of what a cycle waits for before it runs.
    if let hasher, let looks { hasher.walk(with: looks) }
    if let hasher, !configuration.force { hasher.prefetchFirstChecks(of: graph) }
    let needsFingerprints = configuration.keepsJournal || resume || !tracked.isEmpty
    var plan = RunPlan(
      graph: graph, failurePolicy: configuration.failurePolicy, grace: configuration.grace,
      backend: configuration.backend, fingerprints: needsFingerprints ? graph.fingerprints() : [],
      force: configuration.force, keepsJournal: configuration.keepsJournal)
    if !tracked.isEmpty {
      if usesState {
        let (records, recordWarnings) = journals.newestRecords(of: tracked)
        plan.fileRecords = records
        plan.locksSince = preparedAt
        warnings += recordWarnings
      } else {
        plan.fileRecords = [:]
      }
    }
    if !tracked.isEmpty, graph.jobs.contains(where: \.isCached) {
      plan.cache = CacheSettings.resolve(
        option: configuration.cache, environment: getenv("OPRUN_CACHE").map { String(cString: $0) },
        section: graph.manifest.cache, readOnly: configuration.cacheReadOnly, disabled: configuration.noCache,
        manifestFolder: AbsolutePath.of(graph.manifestFolder))
    }
    if let reading {
      let (resumePlan, resumeWarnings) = journals.resumePlan(
        for: graph, fingerprints: plan.fingerprints, reading: reading.value)
      plan.resumePlan = resumePlan
      warnings += resumeWarnings
    }
    let durations =
      configuration.schedule == .criticalPath || (graph.declaresResources && usesState)
      ? (usesState ? journals.pastDurations() : PastDurations()) : nil
    if configuration.schedule == .criticalPath, let durations {
      plan.criticalPath = CriticalPath(graph: graph, durations: durations.durations(of: graph))
    }
    if !configuration.backend.capabilities.takesWholeRun, graph.declaresResources {
      switch budget(of: graph, given: configuration.budget) {
      case .success(let budget):
        plan.resources = ResourcePlan(budget: budget, pastDurations: durations?.durations(of: graph) ?? [])
      case .failure(let message): return .failure(message)
      }
    }
    plan.warnings = warnings
    return .success(PreparedRun(plan: plan, hasher: hasher))
  }

  /// The run's budget: `--budget`'s parts, else the manifest's, else what this oprun may use
  /// (``MachineBudget``), read only for a part neither gives. A job that budget could never
  /// hold is an error, as in the manifest: no job runs.
  private static func budget(of graph: JobGraph, given: ResourceNeeds) -> Result<ResourceBudget, RunCommandLine.Message>
  {
    let written = graph.manifestBudget
    let chosen = ResourceNeeds(cpus: given.cpus ?? written.cpus, memory: given.memory ?? written.memory)
    let machine = chosen.cpus == nil || chosen.memory == nil ? MachineBudget.probe() : nil
    let problems =
      graph.needsBeyond(given, budgetNamed: "--budget")
      + graph.needsBeyond(
        ResourceNeeds(
          cpus: chosen.cpus == nil ? machine?.cpus : nil, memory: chosen.memory == nil ? machine?.memory : nil),
        budgetNamed: "this machine's budget")
    guard problems.isEmpty else {
      return .failure(RunCommandLine.Message(DiagnosticRenderer.render(problems, sources: [])))
    }
    return .success(ResourceBudget(cpus: chosen.cpus ?? machine!.cpus, memory: chosen.memory ?? machine!.memory))
  }

  /// `graph` as `backend` can run it — a cluster checked and without what it cannot do — and
  /// within the descriptors this process may open (the limit raised first).
  private static func fitted(_ graph: JobGraph, to backend: Backend) -> Result<Fitted, RunCommandLine.Message> {
    var graph = graph
    var warnings: [String] = []
    if backend == .slurm {
      switch SlurmPreflight.check() {
      case .ready: break
      case .problem(let problem): return .failure(RunCommandLine.Message("oprun: error: \(problem)\n"))
      case .interrupted(let signal):
        return .failure(
          RunCommandLine.Message(
            "oprun: stopped by \(SignalName.of(signal)) while waiting for the cluster's controller (scontrol ping); "
              + "nothing was submitted\n", endingSignal: signal))
      }
      graph = SlurmPreflight.fitting(graph)
    }
    let descriptorWarning: String?
    (graph, descriptorWarning) = DescriptorBudget.raised(toRun: graph).fitting(graph)
    if let descriptorWarning { warnings.append(descriptorWarning) }
    return .success(Fitted(graph: graph, warnings: warnings))
  }

  /// A graph fitted to its backend, and what fitting it changed.
  private struct Fitted {
    var graph: JobGraph
    var warnings: [String]
  }

  /// `-n`: the order a serial run would start the jobs, and why each runs or not.
  func dryRunText(hasher: FileHasher?, manifestPath: String) -> String {
    let order = graph.plan(criticalPath: criticalPath)
    return PlanText.render(
      order, of: graph, resumePlan: resumePlan,
      filePlan: filePlan(hasher: hasher, manifestPath: manifestPath, askingCache: true),
      criticalPath: criticalPath)
  }

  /// What the files of each tracked job decide now, as `-n` and `oprun list` say it; nil
  /// when no job's files decide (no hasher was opened). `askingCache`: a job that would run
  /// is looked up in the cache, if one is configured.
  func filePlan(hasher: FileHasher?, manifestPath: String, askingCache: Bool = false) -> FilePlan? {
    hasher.map { hasher in
      FilePlan(
        graph: graph, fingerprints: fingerprints.isEmpty ? graph.fingerprints() : fingerprints, force: force,
        resumePlan: resumePlan, records: fileRecords ?? [:], manifestPath: manifestPath, hasher: hasher,
        cache: askingCache ? cache : nil)
    }
  }
}
