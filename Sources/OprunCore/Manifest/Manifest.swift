/// A manifest as written: every SPEC §1 key, every value with its location.
///
/// Decoding fills this model; validation against other jobs and queues (unknown
/// dependencies, cycles) happens when a ``JobGraph`` is built from it.
public struct Manifest: Sendable {
  /// The manifest file as given on the command line.
  public var path: String
  /// The main queue's name: `name`, else the file's stem.
  public var name: String
  public var maxConcurrent: Located<Int>?
  public var onFailure: FailurePolicy
  public var env: [EnvironmentEntry]
  /// `dotenv` (SPEC §15): the files every job's environment starts from, in order.
  public var dotenv: [DotenvFile] = []
  /// What the `dotenv` files set, later files winning; filled once they are read.
  public var dotenvEntries: [EnvironmentEntry] = []
  /// `secrets` (SPEC §15): names of variables whose values are never shown.
  public var secrets: [Located<String>] = []
  public var cwd: Located<String>?
  public var defaults: JobDefaults
  /// Extra queues, in manifest order; the main queue is not listed here.
  public var queues: [QueueSpec]
  /// Jobs in manifest order: the FIFO order among ready jobs of equal priority.
  public var jobs: [JobSpec]
  /// What `--backend slurm` adds to every submission; nil without a `slurm` section.
  public var slurm: SlurmSection?
  /// `budget` (SPEC §12): what the run may use at once, where the manifest says.
  public var budget = ResourceSpec()
  /// `include` (SPEC §15): the manifests whose jobs and queues join this one, in order.
  /// Emptied once they have joined (``ManifestInclusion``).
  public var includes: [IncludeSpec] = []
  /// The `dotenv` files of the manifests it includes, theirs and their jobs', as paths from
  /// where the manifest was read (as ``JobSpec/includedFrom`` is): read with it, so watched
  /// with it.
  public var includedDotenvFiles: [String] = []
  /// What `${{ vars.NAME }}` may name (SPEC §15): `vars`, with the variables given from
  /// outside (the command line's, or an including manifest's) over them.
  public var variables: [String: String] = [:]
  /// `cache` (SPEC §14): where built outputs are shared; nil without a `cache` section.
  public var cache: CacheSection?

  public init(
    path: String, name: String, maxConcurrent: Located<Int>? = nil, onFailure: FailurePolicy = .stop,
    env: [EnvironmentEntry] = [], cwd: Located<String>? = nil, defaults: JobDefaults = JobDefaults(),
    queues: [QueueSpec] = [], jobs: [JobSpec] = []
  ) {
    self.path = path
    self.name = name
    self.maxConcurrent = maxConcurrent
    self.onFailure = onFailure
    self.env = env
    self.cwd = cwd
    self.defaults = defaults
    self.queues = queues
    self.jobs = jobs
  }
}

/// One entry of `include`: a manifest whose jobs and queues join as `PREFIX:NAME`.
public struct IncludeSpec: Sendable {
  /// As written: relative to the including manifest's folder unless absolute.
  public var path: Located<String>
  /// `prefix`, else the file's stem.
  public var prefix: Located<String>
  /// Where the entry is written.
  public var location: SourceLocation

  public init(path: Located<String>, prefix: Located<String>, location: SourceLocation) {
    self.path = path
    self.prefix = prefix
    self.location = location
  }
}

/// One `NAME: value` of an `env` mapping; order is the manifest's.
public struct EnvironmentEntry: Hashable, Sendable {
  public var name: String
  public var value: String

  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// The `defaults` mapping: values every job takes unless it sets its own.
public struct JobDefaults: Sendable {
  public var priority: Priority?
  public var qos: QualityOfService?
  /// Seconds.
  public var timeout: Double?
  public var retries: Int?
  /// Under every job's and queue's own `resources`, one key at a time.
  public var resources = ResourceSpec()

  public init(priority: Priority? = nil, qos: QualityOfService? = nil, timeout: Double? = nil, retries: Int? = nil) {
    self.priority = priority
    self.qos = qos
    self.timeout = timeout
    self.retries = retries
  }
}

/// One entry of `queues`.
public struct QueueSpec: Sendable {
  public var name: String
  public var location: SourceLocation
  public var maxConcurrent: Located<Int>?
  public var qos: QualityOfService?
  /// What its jobs need unless they say, over `defaults`, one key at a time.
  public var resources = ResourceSpec()

  public init(name: String, location: SourceLocation, maxConcurrent: Located<Int>? = nil, qos: QualityOfService? = nil)
  {
    self.name = name
    self.location = location
    self.maxConcurrent = maxConcurrent
    self.qos = qos
  }
}

/// One entry of `jobs`, with `defaults` not yet applied.
///
/// A manifest of 100,000 jobs holds 100,000 of these for as long as it runs, so the keys
/// most jobs do not write live behind one shared reference (``RareKeys``), read and written
/// as the job's own (`spec.inputs`): a job that writes none of them costs a word for them all.
@dynamicMemberLookup
public struct JobSpec: Sendable {
  public var name: String
  /// Where the job's name is written.
  public var location: SourceLocation
  /// `command` (one entry) or `commands`; each runs under `/bin/sh -c`, all concurrently.
  public var commands: [String]
  public var dependencies: [Located<String>]
  public var priority: Priority?
  public var qos: QualityOfService?
  public var runIf: RunCondition
  public var env: [EnvironmentEntry]
  public var barrier: Bool
  public var interactive: Bool
  @usableFromInline var rare = JobSpec.noRareKeys

  /// The keys most jobs do not write, each at its default until written.
  public struct RareKeys: Sendable {
    /// The queue's name; nil is the main queue.
    public var queue: Located<String>?
    public var completion: String?
    /// Seconds.
    public var timeout: Double?
    public var retries: Int?
    /// The job's own `dotenv` files, read after the manifest's, and what they set once read.
    public var dotenv: [DotenvFile] = []
    public var dotenvEntries: [EnvironmentEntry] = []
    public var cwd: String?
    public var description: String?
    /// The job's `matrix`, before expansion; nil after it, and for a job without one.
    public var matrix: MatrixSpec?
    /// Which instance of a matrix job this is, once the matrix is expanded.
    public var instance: MatrixInstance?
    /// Path patterns of what it reads and writes (SPEC §10), each valid as written.
    public var inputs: [Located<String>] = []
    public var outputs: [Located<String>] = []
    /// It writes `inputs` or `outputs` as a list, an empty one included ("depends on no
    /// file"): it runs only when something it depends on changed.
    public var declaresFiles = false
    /// Its own `resources` (SPEC §12), over its queue's and `defaults`.
    public var resources = ResourceSpec()
    /// The included manifest it is written in, as read; nil for the manifest's own jobs. Its
    /// `env`, `cwd` and `defaults` are then that file's, already applied (its `cwd` relative
    /// to the including manifest's folder), and the including manifest's do not reach it.
    public var includedFrom: String?
    /// `cache` (SPEC §14): false keeps its outputs out of the cache; nil as written nowhere.
    public var cache: Bool?
    /// `cache-env`: the variables whose values its cache key holds, in the order written.
    public var cacheEnv: [String] = []
  }

  private static let noRareKeys = Shared(RareKeys())

  /// One of the keys most jobs do not write, as if it were the job's own.
  @inlinable public subscript<Key: Equatable>(dynamicMember key: WritableKeyPath<RareKeys, Key>) -> Key {
    get { rare.value[keyPath: key] }
    set { rare = rare.setting(key, to: newValue) }
  }

  /// The `matrix`, which has no equality to check a write against.
  @inlinable public subscript<Key>(dynamicMember key: WritableKeyPath<RareKeys, Key>) -> Key {
    get { rare.value[keyPath: key] }
    set { rare = rare.changed { $0[keyPath: key] = newValue } }
  }

  public init(
    name: String, location: SourceLocation, commands: [String], dependencies: [Located<String>] = [],
    priority: Priority? = nil, qos: QualityOfService? = nil, queue: Located<String>? = nil,
    completion: String? = nil, runIf: RunCondition = .success, timeout: Double? = nil, retries: Int? = nil,
    env: [EnvironmentEntry] = [], cwd: String? = nil, barrier: Bool = false, description: String? = nil,
    interactive: Bool = false, matrix: MatrixSpec? = nil, instance: MatrixInstance? = nil
  ) {
    self.name = name
    self.location = location
    self.commands = commands
    self.dependencies = dependencies
    self.priority = priority
    self.qos = qos
    self.runIf = runIf
    self.env = env
    self.barrier = barrier
    self.interactive = interactive
    let writesRareKeys =
      queue != nil || completion != nil || timeout != nil || retries != nil || cwd != nil || description != nil
      || matrix != nil || instance != nil
    if writesRareKeys {
      rare = Shared(
        RareKeys(
          queue: queue, completion: completion, timeout: timeout, retries: retries, cwd: cwd, description: description,
          matrix: matrix, instance: instance))
    }
  }
}

/// The manifest's `cache` section (SPEC §14): a folder or a server that keeps jobs' outputs
/// by their cache key. The command line's `--cache`, `--cache-read-only` and `--no-cache` win.
public struct CacheSection: Sendable, Equatable {
  /// A folder, as written (`~` not yet expanded); nil when not written.
  public var path: String?
  /// A server speaking the HTTP cache protocol; nil when not written.
  public var url: String?
  /// Look up, never store.
  public var readOnly = false
  /// Bytes a folder cache is trimmed to after each run; nil for no limit.
  public var maxSize: Int?

  public init(path: String? = nil, url: String? = nil, readOnly: Bool = false, maxSize: Int? = nil) {
    self.path = path
    self.url = url
    self.readOnly = readOnly
    self.maxSize = maxSize
  }
}

/// The manifest's `slurm` section: used only by `--backend slurm`, whose flags win over it.
public struct SlurmSection: Sendable, Equatable {
  public var partition: String?
  public var account: String?
  /// The Slurm QoS for jobs of each QoS class; a class not listed gets none.
  public var qos: [QualityOfService: String] = [:]
  /// More `sbatch` arguments for every job, as written.
  public var sbatchArguments: [String] = []

  public init() {}
}
