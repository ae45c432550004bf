import OprunCore

/// Everything decided about a run before it begins, built once from the manifest and the
/// command line (``RunPlan/prepare(_:)``): `-n` renders it, a run executes it.
///
/// Invariants: `graph` is final — the named targets, `-j`, and the fitting to the backend and
/// to the descriptors are applied, once; `fingerprints` is indexed by the graph's jobs
/// whenever anything needs them (a journal, `--resume`, files); `fileRecords` is set exactly
/// when files decide whether some job runs, which only a backend that shares this machine's
/// files allows.
public struct RunPlan {
  public var graph: JobGraph
  /// `on-failure`, as the command line or else the manifest says.
  public var failurePolicy: FailurePolicy
  /// Seconds between the signal that cancels an executing attempt and the kill.
  public var grace: Double
  /// Where the jobs run, and so what the run can do.
  public var backend: Backend
  /// Every job's fingerprint (SPEC §9); empty when nothing needs them.
  public var fingerprints: [JobFingerprint]
  /// `--resume`'s decision; nil without `--resume`.
  public var resumePlan: ResumePlan?
  /// The newest record of each job whose files decide whether it runs; nil when files decide nothing.
  public var fileRecords: [String: JournalRecord]?
  /// `--force`: every selected job runs.
  public var force: Bool
  /// The run keeps a journal: asked for (not `--no-journal`), and the manifest's `.oprun/`
  /// may be used (SPEC §9).
  public var keepsJournal: Bool
  /// When files decide and the manifest's `.oprun/` may be used (with `--no-journal` too: such
  /// a run writes outputs as well), jobs with outputs take locks between runs (SPEC §10):
  /// the ``MonotonicClock`` reading taken before the records were read and the files first
  /// looked at. Nil: no lock is taken.
  public var locksSince: Double?
  /// `--schedule critical-path`'s order among equals in priority; nil for FIFO.
  public var criticalPath: CriticalPath?
  /// The budget jobs' needs are scheduled against (SPEC §12), with past durations for
  /// backfill; nil when no job declares needs, or on a backend that schedules by itself.
  public var resources: ResourcePlan?
  /// The cache of outputs (SPEC §14), when one is configured and files decide whether some
  /// job with outputs runs; nil otherwise.
  public var cache: CacheSettings?
  /// What was found while preparing the run, for the user before it begins.
  public var warnings: [String]

  /// A plan of `graph` alone: FIFO, no journal, no files, on this machine (tests and tools).
  public init(
    graph: JobGraph, failurePolicy: FailurePolicy? = nil, grace: Double = 5, backend: Backend = .local,
    fingerprints: [JobFingerprint] = [], resumePlan: ResumePlan? = nil, fileRecords: [String: JournalRecord]? = nil,
    force: Bool = false, keepsJournal: Bool = false, criticalPath: CriticalPath? = nil, warnings: [String] = []
  ) {
    self.graph = graph
    self.failurePolicy = failurePolicy ?? graph.manifest.onFailure
    self.grace = grace
    self.backend = backend
    self.fingerprints = fingerprints
    self.resumePlan = resumePlan
    self.fileRecords = fileRecords
    self.force = force
    self.keepsJournal = keepsJournal
    self.criticalPath = criticalPath
    self.warnings = warnings
  }

  /// Files decide whether some job runs.
  public var tracksFiles: Bool { fileRecords != nil }
}
