/// What `--dry-run` says of the jobs whose files decide whether they run (SPEC §10), without
/// running anything: each is up to date, or runs and why. A dependency that would run makes
/// its dependents run when it declares no outputs, and makes them wait on what it writes
/// when it does ("runs if build's outputs change").
public struct FilePlan: Sendable {
  /// By job; nil for a job that declares neither inputs nor outputs.
  public var decisions: [RunDecision?]

  public var upToDateCount: Int { decisions.count { $0 == .upToDate } }

  /// `files(job)` gives a tracked job's inputs and outputs as they are now; `record(job)` its
  /// newest record; `recordedInputs(digest)` and `recordedOutputs(digest)` a kept listing of
  /// inputs or of outputs; `resumePlan` what `--resume`
  /// decided for the others (nil: they run). `restoredResult(job, check)` is asked of a
  /// cached job that runs once every dependency's result is known: the result it would have
  /// once the cache restored it (SPEC §14), nil when the cache holds nothing for it.
  public init(
    graph: JobGraph, fingerprints: [JobFingerprint], force: Bool, resumePlan: ResumePlan?,
    record: (JobID) -> JournalRecord?, recordedInputs: (String) -> FileListing?,
    recordedOutputs: (String) -> FileListing? = { _ in nil },
    files: (JobID) -> (inputs: FileSnapshot, outputs: FileSnapshot),
    restoredResult: (JobID, UpToDateCheck) -> JobResult? = { _, _ in nil }
  ) {
    var decisions = [RunDecision?](repeating: nil, count: graph.jobs.count)
    var results = [JobResult](repeating: .willRun(hasOutputs: false), count: graph.jobs.count)
    // By job that would run and declares outputs: the files it may write again.
    var rewritten = [Set<String>](repeating: [], count: graph.jobs.count)
    for job in graph.topologicalOrder() {
      let node = graph.jobs[job]
      guard node.tracksFiles else {
        if resumePlan?.decisions[job] == .resumed { results[job] = .unchanged(fingerprints[job].text) }
        continue
      }
      let (inputs, outputs) = files(job)
      let found = record(job)
      var check = UpToDateCheck(
        job: job, record: found, fingerprint: fingerprints[job], inputs: inputs, outputs: outputs,
        recordedInputs: UpToDateCheck.recordedInputs(of: found, now: inputs, read: recordedInputs),
        recordedOutputs: UpToDateCheck.recordedOutputs(of: found, now: outputs, read: recordedOutputs),
        dependencyResults: node.dependencies.map { results[$0] })
      // Only asked for when its inputs changed: what the jobs it depends on, directly or not,
      // may write again if they run.
      if found?.files?.inputs != inputs.digest {
        var stack = node.dependencies
        var seen = Set(stack)
        while let dependency = stack.popLast() {
          guard decisions[dependency] != .upToDate else { continue }
          check.filesDependenciesMayRewrite.formUnion(rewritten[dependency])
          for next in graph.jobs[dependency].dependencies where seen.insert(next).inserted { stack.append(next) }
        }
      }
      var decision = force ? RunDecision.runs(.forced) : check.decision(in: graph)
      var restored: JobResult?
      if case .runs = decision, !force, node.isCached,
        !check.dependencyResults.contains(where: { if case .willRun = $0 { true } else { false } })
      {
        restored = restoredResult(job, check)
        if restored != nil { decision = .restored }
      }
      decisions[job] = decision
      if decision != .upToDate, !node.outputs.isEmpty {
        // Outputs kept apart: their listing is read only when they differ from it (else they are
        // the recorded ones), and one that is gone names none.
        let recorded: [FileRecord]
        switch found?.files?.outputs {
        case .listed(let files)?: recorded = files
        case .kept?: recorded = check.recordedOutputs?.records ?? []
        case nil: recorded = []
        }
        rewritten[job] = Set(outputs.files.map(\.path)).union(recorded.map(\.path))
      }
      results[job] =
        restored
        ?? (decision == .upToDate
          ? check.resultWhenUpToDate(in: graph) : .willRun(hasOutputs: !node.outputs.isEmpty))
    }
    self.decisions = decisions
  }
}
