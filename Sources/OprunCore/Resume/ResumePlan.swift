/// Which jobs `--resume` skips and why each other job runs (SPEC §9): taken before the run
/// starts, from the jobs' fingerprints and what the last run of the manifest recorded.
///
/// A job is resumed when its last record is a success with the same fingerprint and every
/// job it depends on is resumed too; everything else runs, and says why.
public struct ResumePlan: Sendable {
  /// By ``JobID``.
  public var decisions: [RunDecision]
  /// The run whose journal the plan was made against; nil when there was none.
  public var journalRun: String?

  public var resumedCount: Int { decisions.count { $0 == .resumed } }

  public init(decisions: [RunDecision], journalRun: String?) {
    self.decisions = decisions
    self.journalRun = journalRun
  }

  /// The plan for `graph` whose fingerprints are `fingerprints`, against `records` (each
  /// job's last record by name, see ``JournalHistory``), or with no journal at all.
  /// `someLinesUnread`: a journal they come from had lines that could not be read, so a
  /// job without a record may have lost it there.
  public init(
    graph: JobGraph, fingerprints: [JobFingerprint], records: [String: JournalRecord]?, journalRun: String?,
    someLinesUnread: Bool = false
  ) {
    var decisions = [RunDecision](repeating: .resumed, count: graph.jobs.count)
    for job in graph.topologicalOrder() {
      decisions[job] = Self.decide(
        job, in: graph, fingerprint: fingerprints[job], records: records, someLinesUnread: someLinesUnread,
        decisions: decisions)
    }
    self.init(decisions: decisions, journalRun: journalRun)
  }

  private static func decide(
    _ job: JobID, in graph: JobGraph, fingerprint: JobFingerprint, records: [String: JournalRecord]?,
    someLinesUnread: Bool, decisions: [RunDecision]
  ) -> RunDecision {
    guard let records else { return .runs(.noJournal) }
    guard let record = records[graph.jobs[job].name] else {
      return .runs(someLinesUnread ? .unreadable : .notInLastRun)
    }
    let dependencies = graph.jobs[job].dependencies
    // Its fingerprint differs but no part of its own says why: a dependency changed and ran
    // after this record was written (in a run that did not cover this job). Name it when
    // the records tell which.
    func changedUpstream() -> RunDecision {
      let newer = dependencies.first { (records[graph.jobs[$0].name]?.start ?? 0) > record.start }
      return .runs(newer.map { .dependencyChanged($0) } ?? .changed([]))
    }
    if record.fingerprint != fingerprint.value {
      let changed = FingerprintPart.allCases.filter { part in
        record.parts[part].map { $0 != fingerprint.parts[part] } ?? false
      }
      if !changed.isEmpty { return .runs(.changed(changed)) }
      if record.parts.isEmpty { return changedUpstream() }
    }
    guard record.outcome == .succeeded else { return .runs(.lastOutcome(record.outcome)) }
    for dependency in dependencies {
      if case .runs(let reason) = decisions[dependency] {
        return .runs(.dependencyRuns(dependency, origin: reason.origin ?? dependency))
      }
    }
    // Every part and every dependency is unchanged, so the whole is too unless a dependency
    // changed elsewhere, or the record is damaged or from another fingerprint scheme.
    return record.fingerprint == fingerprint.value ? .resumed : changedUpstream()
  }
}

/// What `--resume` decided for one job, or what its files decided (SPEC §10).
public enum RunDecision: Equatable, Sendable {
  case resumed
  /// It declares inputs or outputs and nothing of them changed: it does not run.
  case upToDate
  /// It does not run: its outputs are restored from the cache (SPEC §14).
  case restored
  case runs(RunReason)
}

/// Why a job runs under `--resume`, or why a job that declares inputs or outputs runs.
public enum RunReason: Equatable, Sendable {
  /// No journal of an earlier run of the manifest.
  case noJournal
  /// The last run that covered the job has no record of it: it never finished there, or
  /// it is new.
  case notInLastRun
  /// It did not succeed last time.
  case lastOutcome(Outcome)
  /// These parts of its fingerprint changed (none named when the record cannot say which).
  case changed([FingerprintPart])
  /// This dependency runs; `origin` is the job up the chain that runs for a reason of its own.
  case dependencyRuns(JobID, origin: JobID)
  /// This dependency changed and ran after the job's record was written (a run that did not
  /// cover the job), so the job's fingerprint changed with it.
  case dependencyChanged(JobID)
  /// No record of it could be read: the journal had lines that could not be.
  case unreadable
  /// No journal holds a record of it that says what its files were.
  case noRecord
  /// A file its inputs match was added, removed or changed since it last succeeded.
  case inputChanged(FileDifference)
  /// Its inputs changed, but the listing that would say which file is gone.
  case inputsChanged
  /// This input changed while the job last ran: what its outputs were built from is unknown.
  case inputChangedWhileRunning(String)
  /// One of its outputs was removed, changed or added since it last succeeded.
  case outputChanged(FileDifference)
  /// Its outputs changed, but the listing that would say which file is gone.
  case outputsChanged
  /// An output pattern matches nothing.
  case outputMissing(String)
  /// This input (or output) could not be read, so whether it changed cannot be told.
  case unreadableFile(String, isInput: Bool)
  /// This dependency, which declares no outputs, ran in this run.
  case dependencyRan(JobID)
  /// This dependency's result (its outputs, when it declares any) is not what the job recorded.
  case dependencyResultChanged(JobID, hasOutputs: Bool)
  /// This dependency, which declares outputs, will run: whether the job runs depends on
  /// what it writes (`--dry-run` only).
  case dependencyMayChange(JobID)
  /// `--force`.
  case forced
  /// A reason read back from an event stream (``EventLine``): the run's code and words for it.
  case recorded(code: String, text: String)

  /// The job at the top of a chain of `dependencyRuns`; nil for a reason of the job's own.
  var origin: JobID? {
    if case .dependencyRuns(_, let origin) = self { return origin }
    return nil
  }

  /// A word for scripts: the `why` of the event stream.
  public var code: String {
    switch self {
    case .noJournal: "no-journal"
    case .notInLastRun: "not-in-last-run"
    case .lastOutcome(let outcome): outcome.rawValue
    case .changed: "changed"
    case .dependencyRuns: "dependency-runs"
    case .dependencyChanged: "dependency-changed"
    case .unreadable: "unreadable"
    case .noRecord: "no-record"
    case .inputChanged(let difference): "input-" + difference.change.rawValue
    case .inputsChanged: "input-changed"
    case .inputChangedWhileRunning: "input-changed-while-running"
    case .outputChanged(let difference):
      difference.change == .removed ? "output-missing" : "output-" + difference.change.rawValue
    case .outputsChanged: "output-changed"
    case .outputMissing: "output-missing"
    case .unreadableFile(_, let isInput): isInput ? "input-unreadable" : "output-unreadable"
    case .dependencyRan: "dependency-ran"
    case .dependencyResultChanged: "dependency-changed"
    case .dependencyMayChange: "dependency-may-change"
    case .forced: "forced"
    case .recorded(let code, _): code
    }
  }
}

extension RunDecision {
  /// A word for scripts: `resumed`, or the reason's code.
  public var code: String {
    switch self {
    case .resumed: "resumed"
    case .upToDate: "up-to-date"
    case .restored: "restored"
    case .runs(let reason): reason.code
    }
  }

  /// For people: `resumed`, `command changed`, `dependency build runs (because of lib)`.
  public func text(in graph: JobGraph) -> String {
    switch self {
    case .resumed:
      return "resumed"
    case .upToDate:
      return "up to date"
    case .restored:
      return "restored from cache"
    case .runs(.noRecord):
      return "no record of it"
    case .runs(.inputChanged(let difference)):
      return "input \(difference.path) \(difference.change.rawValue)" + Self.others(difference.count)
    case .runs(.inputsChanged):
      return "its inputs changed"
    case .runs(.inputChangedWhileRunning(let path)):
      return "input \(path) changed while it last ran"
    case .runs(.outputChanged(let difference)):
      let word = difference.change == .removed ? "missing" : difference.change == .added ? "appeared" : "changed"
      return "output \(difference.path) \(word)" + Self.others(difference.count)
    case .runs(.outputsChanged):
      return "its outputs changed"
    case .runs(.outputMissing(let pattern)):
      return "output \(pattern) missing"
    case .runs(.unreadableFile(let path, let isInput)):
      return "\(isInput ? "input" : "output") \(path) cannot be read"
    case .runs(.dependencyRan(let dependency)):
      return "dependency \(graph.jobs[dependency].name) ran"
    case .runs(.dependencyResultChanged(let dependency, let hasOutputs)):
      return hasOutputs
        ? "\(graph.jobs[dependency].name)'s outputs changed" : "dependency \(graph.jobs[dependency].name) changed"
    case .runs(.dependencyMayChange(let dependency)):
      return "if \(graph.jobs[dependency].name)'s outputs change"
    case .runs(.recorded(_, let text)):
      return text
    case .runs(.forced):
      return "--force"
    case .runs(.noJournal):
      return "no journal of an earlier run"
    case .runs(.notInLastRun):
      return "no record of it in the last run"
    case .runs(.lastOutcome(let outcome)):
      return "\(outcome.word) last time"
    case .runs(.changed(let parts)):
      guard !parts.isEmpty else { return "changed" }
      return parts.map(\.rawValue).joined(separator: ", ") + " changed"
    case .runs(.dependencyChanged(let dependency)):
      return "dependency \(graph.jobs[dependency].name) changed since it last ran"
    case .runs(.unreadable):
      return "its record in the last run could not be read"
    case .runs(.dependencyRuns(let dependency, let origin)):
      let text = "dependency \(graph.jobs[dependency].name) runs"
      return origin == dependency ? text : text + " (because of \(graph.jobs[origin].name))"
    }
  }

  /// ` (and 2 more)` for 3 differences; nothing for one.
  private static func others(_ count: Int) -> String {
    count > 1 ? " (and \(count - 1) more)" : ""
  }
}
