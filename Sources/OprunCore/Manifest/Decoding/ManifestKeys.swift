/// The keys one kind of mapping allows, in the order the documentation lists them.
protocol ManifestKey: CaseIterable, Sendable where AllCases == [Self] {
  /// The key as written in a manifest.
  var word: String { get }
  /// A dense index, below 64, for duplicate detection with a bit set.
  var ordinal: Int { get }
  /// Every key by its word.
  static var byWord: [String: Self] { get }
}

extension ManifestKey where Self: RawRepresentable, RawValue == Int {
  var ordinal: Int { rawValue }

  static func index() -> [String: Self] {
    Dictionary(uniqueKeysWithValues: allCases.map { ($0.word, $0) })
  }
}

/// The keys of one mapping read so far, each of them once, and those an unknown key was
/// answered with ("did you mean 'command'?"): a key that a misspelling of it stands for is
/// not reported missing as well, since that would be the same mistake twice.
struct KeysRead<Key: ManifestKey> {
  private var written: UInt64 = 0
  private var meant: UInt64 = 0

  func contains(_ key: Key) -> Bool { written & Self.bit(key) != 0 }

  /// Written, or meant by an unknown key.
  func containsOrMeant(_ key: Key) -> Bool { (written | meant) & Self.bit(key) != 0 }

  /// Records `key` as written; false if it was written before.
  mutating func insert(_ key: Key) -> Bool {
    defer { written |= Self.bit(key) }
    return !contains(key)
  }

  /// Records that an unknown key was taken for `key`.
  mutating func insertMeant(_ key: Key) { meant |= Self.bit(key) }

  private static func bit(_ key: Key) -> UInt64 { 1 << UInt64(key.ordinal) }
}

/// The keys of the manifest's top-level mapping.
enum TopLevelKey: Int, ManifestKey {
  case name, maxConcurrent, onFailure, env, cwd, defaults, queues, jobs, slurm, budget
  case dotenv, secrets, include, vars, cache

  var word: String {
    switch self {
    case .dotenv: "dotenv"
    case .secrets: "secrets"
    case .include: "include"
    case .vars: "vars"
    case .slurm: "slurm"
    case .budget: "budget"
    case .cache: "cache"
    case .name: "name"
    case .maxConcurrent: "max-concurrent"
    case .onFailure: "on-failure"
    case .env: "env"
    case .cwd: "cwd"
    case .defaults: "defaults"
    case .queues: "queues"
    case .jobs: "jobs"
    }
  }

  static let byWord = index()
}

/// The keys of one job.
enum JobKey: Int, ManifestKey {
  case command, commands, dependencies, priority, qos, queue, completion, runIf, timeout, retries
  case env, cwd, barrier, description, interactive, matrix, inputs, outputs, resources
  case dotenv, cache, cacheEnv

  // Spelled out: `String(describing:)` of a case goes through reflection, which cost a
  // tenth of a one-job run's start-up.
  var word: String {
    switch self {
    case .dotenv: "dotenv"
    case .command: "command"
    case .commands: "commands"
    case .dependencies: "dependencies"
    case .priority: "priority"
    case .qos: "qos"
    case .queue: "queue"
    case .completion: "completion"
    case .runIf: "run-if"
    case .timeout: "timeout"
    case .retries: "retries"
    case .env: "env"
    case .cwd: "cwd"
    case .barrier: "barrier"
    case .description: "description"
    case .interactive: "interactive"
    case .matrix: "matrix"
    case .inputs: "inputs"
    case .outputs: "outputs"
    case .resources: "resources"
    case .cache: "cache"
    case .cacheEnv: "cache-env"
    }
  }

  static let byWord = index()
}

/// The keys of the top-level `cache` (SPEC §14).
enum CacheSectionKey: Int, ManifestKey {
  case path, url, readOnly, maxSize

  var word: String {
    switch self {
    case .path: "path"
    case .url: "url"
    case .readOnly: "read-only"
    case .maxSize: "max-size"
    }
  }

  static let byWord = index()
}

/// The keys of one entry of `include` written as a mapping.
enum IncludeKey: Int, ManifestKey {
  case path, prefix

  var word: String {
    switch self {
    case .path: "path"
    case .prefix: "prefix"
    }
  }

  static let byWord = index()
}

/// The keys of one entry of `queues`.
enum QueueKey: Int, ManifestKey {
  case maxConcurrent, qos, resources

  var word: String {
    switch self {
    case .maxConcurrent: "max-concurrent"
    case .qos: "qos"
    case .resources: "resources"
    }
  }

  static let byWord = index()
}

/// The keys of `defaults`.
enum DefaultsKey: Int, ManifestKey {
  case priority, qos, timeout, retries, resources

  var word: String {
    switch self {
    case .priority: "priority"
    case .qos: "qos"
    case .timeout: "timeout"
    case .retries: "retries"
    case .resources: "resources"
    }
  }

  static let byWord = index()
}

/// The keys of `slurm`: what every submission of `--backend slurm` adds.
enum SlurmKey: Int, ManifestKey {
  case partition, account, qos, sbatchArgs

  var word: String {
    switch self {
    case .partition: "partition"
    case .account: "account"
    case .qos: "qos"
    case .sbatchArgs: "sbatch-args"
    }
  }

  static let byWord = index()
}

/// The keys of a `resources` or `budget` mapping.
enum ResourceKey: Int, ManifestKey {
  case cpus, memory

  var word: String {
    switch self {
    case .cpus: "cpus"
    case .memory: "memory"
    }
  }

  static let byWord = index()
}
