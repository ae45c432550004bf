import OprunCore

/// Everything a local run needs beyond its graph: what the command line decided.
public struct RunConfiguration: Sendable {
  public typealias OutputMode = HumanOptions.OutputMode
  public typealias Verbosity = HumanOptions.Verbosity

  /// The manifest file as given.
  public var manifestPath: String
  /// Only these jobs and their dependencies; empty for every job.
  public var targets: [String] = []
  /// `NAME=value` of the command line, over the manifest's `vars` (SPEC §15).
  public var variables: [String: String] = [:]
  /// Overrides every queue's `max-concurrent`.
  public var maxConcurrent: Int?
  /// Overrides the manifest's `on-failure`.
  public var failurePolicy: FailurePolicy?
  public var dryRun = false
  public var outputMode: OutputMode = .prefixed
  /// NDJSON event stream; "-" is standard output (human output then goes to standard error).
  public var eventsPath: String?
  /// `--events-output`: whether the event stream carries the jobs' output lines.
  public var eventsOutput: EventsOutput = .all
  /// Chrome trace-event JSON written when the run ends.
  public var tracePath: String?
  /// Seconds between the cancelling signal and SIGKILL.
  public var grace: Double = 5
  public var verbosity: Verbosity = .normal
  /// `--schedule`: the order among ready jobs of one priority band.
  public var schedule: Schedule = .fifo
  /// `--resume`: skip the jobs that succeeded unchanged in the last run.
  public var resume = false
  /// `--force`: run every selected job, even one its files show up to date (SPEC §10); wins over `--resume`.
  public var force = false
  /// Keep a journal of the run in `.oprun/runs/` (off with `--no-journal`).
  public var keepsJournal = true
  /// `--budget`: the parts of the run's budget it gives, over the manifest's `budget`.
  public var budget = ResourceNeeds()
  /// `--backend`: where the jobs run.
  public var backend: Backend = .local
  /// What `--backend slurm` adds to every submission.
  public var slurm = SlurmOptions()
  /// oprun's arguments as given, for the journal's header.
  public var arguments: [String] = []
  /// What reading the command line's words found to warn of before anything is read (`ManifestArguments`).
  public var argumentWarning: String?
  /// `--watch-delay` in seconds under `--watch` (SPEC §13): run again after each change; nil
  /// for one run.
  public var watchDelay: Double?
  /// `--cache PATH|URL`: the cache of outputs (SPEC §14), over `OPRUN_CACHE` and the manifest's.
  public var cache: String?
  /// `--cache-read-only`: look up, never store.
  public var cacheReadOnly = false
  /// `--no-cache`: no cache, whatever else says.
  public var noCache = false
  /// The event stream and trace files are added to, not replaced: a later cycle of `--watch`.
  var appendsToOutputFiles = false

  public init(manifestPath: String) {
    self.manifestPath = manifestPath
  }

  /// A run of the manifest and jobs `words` name, every other setting at its default.
  public init(words: [String]) {
    let arguments = ManifestArguments(words)
    self.init(manifestPath: arguments.manifestPath)
    targets = arguments.targets
    variables = arguments.variables
    argumentWarning = arguments.ambiguity
  }
}

/// What of the jobs' output the event stream carries (`--events-output`).
public enum EventsOutput: String, Sendable, CaseIterable {
  /// Every line a job prints, as an `output` event: the default.
  case all
  /// None (`none`): the stream describes the run alone.
  case leftOut = "none"
}

/// Where a run's jobs run (`--backend`).
public enum Backend: String, Sendable, CaseIterable {
  /// Processes on this machine: the default.
  case local
  /// One `sbatch` submission per job on a Slurm cluster.
  case slurm
}

extension Backend {
  /// What the backend of this kind can do, known before one is made.
  public var capabilities: BackendCapabilities {
    switch self {
    case .local: .thisMachine
    case .slurm: .cluster
    }
  }
}
