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

/// The keys of the manifest's top-level mapping.
enum TopLevelKey: Int, ManifestKey {
  case name, maxConcurrent, onFailure, env, cwd, defaults, queues, jobs, slurm

  var word: String {
    switch self {
    case .slurm: "slurm"
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
  case env, cwd, barrier, description, interactive, matrix, inputs, outputs

  // Spelled out: `String(describing:)` of a case goes through reflection, which cost a
  // tenth of a one-job run's start-up.
  var word: String {
    switch self {
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
    }
  }

  static let byWord = index()
}

/// The keys of one entry of `queues`.
enum QueueKey: Int, ManifestKey {
  case maxConcurrent, qos

  var word: String {
    switch self {
    case .maxConcurrent: "max-concurrent"
    case .qos: "qos"
    }
  }

  static let byWord = index()
}

/// The keys of `defaults`.
enum DefaultsKey: Int, ManifestKey {
  case priority, qos, timeout, retries

  var word: String {
    switch self {
    case .priority: "priority"
    case .qos: "qos"
    case .timeout: "timeout"
    case .retries: "retries"
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
