/// A job's index in manifest order. Ids are dense: `0..<graph.jobs.count`.
public typealias JobID = Int

/// A queue's index: 0 is the main queue, then `queues` in manifest order.
public typealias QueueID = Int

/// A validated job graph: every name resolved, no cycle, barriers turned into edges.
///
/// Built from a ``Manifest`` by `JobGraph(manifest:defaultMaxConcurrent:)`, which reports
/// every problem as a ``Diagnostic``. Invariant: every dependency id is a valid ``JobID``,
/// and the graph is acyclic.
public struct JobGraph: Sendable {
  public var manifest: Manifest
  /// The main queue first, then the manifest's `queues` in order.
  public var queues: [QueueNode]
  /// In manifest order; `jobs[id].id == id`. A matrix job is here as its instances.
  public var jobs: [JobNode]
  /// What the manifest holds that is worth a word but stops nothing (an `exclude` that
  /// matches no combination), in reading order.
  public var manifestWarnings: [Diagnostic] = []
  /// The jobs that declare inputs or outputs which ``restricted(to:)`` left out: a targeted
  /// run must not drop their newest records from the journals (SPEC §10).
  public var trackedJobsLeftOut: Set<String> = []

  public init(manifest: Manifest, queues: [QueueNode], jobs: [JobNode]) {
    self.manifest = manifest
    self.queues = queues
    self.jobs = jobs
  }

  /// The id of the job called `name`, if there is one.
  public func job(named name: String) -> JobID? {
    jobs.firstIndex { $0.name == name }
  }

  /// The manifest's folder: where a job without a `cwd` runs, as go-task runs a Taskfile's
  /// tasks in its folder (`JobNode.cwd` is already resolved against it when written).
  public var manifestFolder: String { PathParts.folder(of: manifest.path) }

  /// Every job of the manifest that declares inputs or outputs, those a targeted run left
  /// out included: the jobs whose newest records the journals keep.
  public var trackedJobNames: Set<String> {
    trackedJobsLeftOut.union(jobs.lazy.filter(\.tracksFiles).map(\.name))
  }

  /// The id of the queue called `name`, if there is one.
  public func queue(named name: String) -> QueueID? {
    queues.firstIndex { $0.name == name }
  }
}

/// One operation queue of a run.
public struct QueueNode: Sendable, Equatable {
  public var name: String
  /// `maxConcurrentOperationCount`; 1 makes a serial queue. Always at least 1.
  public var maxConcurrent: Int
  /// The queue's QoS, which its jobs inherit unless they set their own.
  public var qos: QualityOfService?

  public init(name: String, maxConcurrent: Int, qos: QualityOfService? = nil) {
    self.name = name
    self.maxConcurrent = maxConcurrent
    self.qos = qos
  }
}

/// One job, with `defaults` applied and names resolved to ids.
///
/// A run of 100,000 jobs holds 100,000 of these, so what most jobs do not have lives behind
/// one shared reference (``RareParts``), read and written as the job's own (`job.outputs`): a
/// job that has none of it costs a word for it all.
@dynamicMemberLookup
public struct JobNode: Sendable {
  public var id: JobID
  public var name: String
  public var queue: QueueID
  /// Explicit dependencies plus the edges barriers add; no duplicates, in manifest order.
  public var dependencies: [JobID]
  /// The jobs that list this one in `dependencies`, in manifest order.
  public var dependents: [JobID]
  /// The job's own `priority`, else `defaults.priority`; nil when neither is written.
  public var explicitPriority: Priority?
  /// The job's `qos`, else its queue's, else `defaults.qos`, else `.default`.
  public var qos: QualityOfService
  public var commands: [String]
  public var runIf: RunCondition
  /// Seconds; nil for none.
  public var timeout: Double?
  /// How many times a failed job is run again; 0 for none.
  public var retries: Int
  public var env: [EnvironmentEntry]
  /// Where it runs: ``writtenCwd`` resolved against the manifest's folder; nil when neither
  /// the job nor the manifest sets a `cwd` (it runs in the manifest's folder).
  public var cwd: String?
  /// Its `cwd` within the manifest's `cwd`, as written: relative to the manifest's folder
  /// unless absolute, so it means the same wherever the manifest is (what a fingerprint
  /// holds); nil when neither is written.
  public var writtenCwd: String?
  public var barrier: Bool
  public var interactive: Bool
  public var location: SourceLocation
  @usableFromInline var rare = JobNode.noRareParts

  /// What most jobs do not have, each at its default until set.
  public struct RareParts: Sendable {
    public var completion: String?
    /// Which instance of a matrix job this is; nil for a job without a matrix.
    public var instance: MatrixInstance?
    /// Its `description`, as `oprun list`, `-n`, `oprun graph` and the report show it.
    public var description: String?
    /// What it reads and writes (SPEC §10), relative to where it runs.
    public var inputs: [PathPattern] = []
    public var outputs: [PathPattern] = []
    /// Its manifest writes `inputs` or `outputs`, an empty list included.
    public var declaresFiles = false
    /// What it needs (SPEC §12): its own `resources` over its queue's over `defaults`, one
    /// key at a time, each where it is written.
    public var resources = ResourceSpec()
    /// Its `cache` (SPEC §14): false keeps it out of a configured cache.
    public var cache: Bool?
    /// Its `cache-env`: variables whose values its cache key holds.
    public var cacheEnv: [String] = []
  }

  private static let noRareParts = Shared(RareParts())

  /// One of the parts most jobs do not have, as if it were the job's own.
  @inlinable public subscript<Part: Equatable>(dynamicMember part: WritableKeyPath<RareParts, Part>) -> Part {
    get { rare.value[keyPath: part] }
    set { rare = rare.setting(part, to: newValue) }
  }

  /// When a cache is configured, its outputs are kept there: it declares outputs and does not
  /// say `cache: false` (SPEC §14).
  public var isCached: Bool { !rare.value.outputs.isEmpty && rare.value.cache != false }

  /// What it needs, without where that is written.
  public var needs: ResourceNeeds { rare.value.resources.amounts }

  /// It declares what it reads or writes, if only that it reads no file (`inputs: []`): it
  /// runs only when something of that changed.
  public var tracksFiles: Bool {
    rare.value.declaresFiles || !rare.value.inputs.isEmpty || !rare.value.outputs.isEmpty
  }

  public init(
    id: JobID, name: String, queue: QueueID, dependencies: [JobID], dependents: [JobID] = [],
    explicitPriority: Priority? = nil, qos: QualityOfService = .default, commands: [String],
    completion: String? = nil, runIf: RunCondition = .success, timeout: Double? = nil, retries: Int = 0,
    env: [EnvironmentEntry] = [], cwd: String? = nil, writtenCwd: String? = nil, barrier: Bool = false,
    interactive: Bool = false, location: SourceLocation, instance: MatrixInstance? = nil
  ) {
    self.id = id
    self.name = name
    self.queue = queue
    self.dependencies = dependencies
    self.dependents = dependents
    self.explicitPriority = explicitPriority
    self.qos = qos
    self.commands = commands
    self.runIf = runIf
    self.timeout = timeout
    self.retries = retries
    self.env = env
    self.cwd = cwd
    self.writtenCwd = writtenCwd
    self.barrier = barrier
    self.interactive = interactive
    self.location = location
    if completion != nil || instance != nil {
      rare = Shared(RareParts(completion: completion, instance: instance))
    }
  }

  /// The priority band the job starts in, as Foundation orders a queue: an explicit
  /// priority wins; otherwise a non-serial queue takes the band of the job's QoS, and a
  /// serial queue ignores QoS (normal). Fixed when the run starts.
  public func band(onSerialQueue serial: Bool) -> Priority {
    if let explicitPriority { return explicitPriority }
    return serial ? .normal : qos.priorityBand
  }
}
