extension ManifestDecoder {
  /// The manifest the document describes, as far as it is valid; nil if the document is
  /// empty or not a mapping, since then nothing else can be said about it.
  mutating func decodeManifest() -> Manifest? {
    guard let root = tree.root, !tree[root].isNull else {
      let start = SourceLocation(file: path, line: 1, column: 1)
      report(Diagnostic(at: start, "the manifest is empty; expected a mapping with 'jobs'"))
      return nil
    }
    guard tree[root].kind == .mapping else {
      reportWrongType(root, expected: "a mapping of manifest keys ('name', 'jobs', …)")
      return nil
    }
    var manifest = Manifest(path: path, name: Self.stem(of: path))
    // Before any job: a job written above `vars` may name them.
    decodeVariables(root)
    manifest.variables = variables
    var seen = KeysRead<TopLevelKey>()
    for (keyNode, value) in tree.entries(of: root) {
      if Self.isExtensionKey(keyNode, in: tree) { continue }
      guard let key: TopLevelKey = schemaKey(keyNode, of: root, seen: &seen, context: "") else { continue }
      guard !tree[value].isNull else { continue }
      decode(key, value, into: &manifest)
    }
    if !seen.containsOrMeant(.jobs) {
      report(root, "the manifest has no 'jobs'")
    }
    reportMisplacedSubstitutions()
    return manifest
  }

  /// A top-level key starting with `x-` is the manifest author's, not oprun's: a place to
  /// anchor what several jobs share, as Docker Compose's extension fields are. Only the top
  /// level has them, so that a misspelt key inside a job is still reported.
  static func isExtensionKey(_ keyNode: Int32, in tree: YAMLTree) -> Bool {
    tree[keyNode].kind == .scalar && tree[keyNode].text.hasPrefix("x-")
  }

  private mutating func decode(_ key: TopLevelKey, _ value: Int32, into manifest: inout Manifest) {
    switch key {
    case .dotenv: manifest.dotenv = dotenvFiles(value)
    case .secrets: manifest.secrets = secretNames(value)
    case .name: if let name = name(value, of: "queue") { manifest.name = name }
    case .maxConcurrent: manifest.maxConcurrent = concurrencyLimit(value)
    case .onFailure:
      let policies = FailurePolicy.allCases.map { ($0.rawValue, $0) }
      manifest.onFailure = word(value, kind: "on-failure policy", among: policies) ?? .stop
    case .env: manifest.env = environment(value)
    case .cwd: manifest.cwd = string(value, expected: "a directory").map { Located($0, at: location(value)) }
    case .defaults: manifest.defaults = defaults(value)
    case .queues: manifest.queues = queues(value)
    case .jobs: manifest.jobs = jobs(value)
    case .slurm: manifest.slurm = slurm(value)
    case .budget: manifest.budget = resources(value, of: "'budget'")
    case .include: manifest.includes = includes(value)
    case .vars: break
    case .cache: manifest.cache = cacheSection(value)
    }
  }

  /// `cache` (SPEC §14): `true`, or a mapping of `path`, `url`, `read-only` and `max-size`.
  private mutating func cacheSection(_ node: Int32) -> CacheSection? {
    if tree[node].kind == .scalar, let enabled = ManifestDecoder.boolean(tree[node].text) {
      return enabled ? CacheSection() : nil
    }
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping with 'path', 'url', 'read-only' and 'max-size'")
      return nil
    }
    var section = CacheSection()
    var seen = KeysRead<CacheSectionKey>()
    for (keyNode, value) in tree.entries(of: node) {
      guard let key: CacheSectionKey = schemaKey(keyNode, of: node, seen: &seen, context: " in 'cache'") else {
        continue
      }
      guard !tree[value].isNull else { continue }
      switch key {
      case .path: section.path = string(value, expected: "a folder")
      case .url:
        guard let url = string(value, expected: "an http:// or https:// URL") else { continue }
        if url.hasPrefix("http://") || url.hasPrefix("https://") {
          section.url = url
        } else {
          report(value, "'url' in 'cache' must begin with http:// or https://")
        }
      case .readOnly: section.readOnly = boolean(value, key: "read-only") ?? false
      case .maxSize:
        guard let text = string(value, expected: ByteSize.forms) else { continue }
        if let bytes = ByteSize.bytes(text), bytes > 0 {
          section.maxSize = bytes
        } else {
          report(value, "invalid 'max-size' '\(text)' in 'cache': expected \(ByteSize.forms)")
        }
      }
    }
    if section.path != nil, section.url != nil {
      report(node, "'cache' has both 'path' and 'url'; write one of them")
    }
    return section
  }

  /// The file's name without its directory and last extension: the main queue's default name.
  static func stem(of path: String) -> String {
    let file = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
    return String(file[..<dot])
  }

  private mutating func defaults(_ node: Int32) -> JobDefaults {
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping of job defaults")
      return JobDefaults()
    }
    var defaults = JobDefaults()
    var seen = KeysRead<DefaultsKey>()
    for (keyNode, value) in tree.entries(of: node) {
      guard let key: DefaultsKey = schemaKey(keyNode, of: node, seen: &seen, context: " in 'defaults'") else {
        continue
      }
      guard !tree[value].isNull else { continue }
      switch key {
      case .priority: defaults.priority = priority(value)
      case .qos: defaults.qos = qualityOfService(value)
      case .timeout: defaults.timeout = duration(value, key: "timeout")
      case .retries: defaults.retries = retryCount(value)
      case .resources: defaults.resources = resources(value, of: "'resources' of 'defaults'")
      }
    }
    return defaults
  }

  private mutating func queues(_ node: Int32) -> [QueueSpec] {
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping of queue names to queues")
      return []
    }
    var queues: [QueueSpec] = []
    var firstKeys: [String: Int32] = [:]
    for (keyNode, value) in tree.entries(of: node) {
      guard let name = keyName(keyNode) else { continue }
      guard !name.isEmpty else {
        report(keyNode, "a queue name must not be empty")
        continue
      }
      if let first = firstKeys.updateValue(keyNode, forKey: name) {
        firstKeys[name] = first
        reportDuplicateKey(keyNode, word: name, firstWrittenAt: first, context: " in 'queues'")
        continue
      }
      var queue = QueueSpec(name: name, location: location(keyNode))
      if !tree[value].isNull { decodeQueue(value, into: &queue) }
      queues.append(queue)
    }
    return queues
  }

  private mutating func decodeQueue(_ node: Int32, into queue: inout QueueSpec) {
    guard tree[node].kind == .mapping else {
      reportWrongType(
        node, expected: "a mapping with 'max-concurrent', 'qos' and 'resources' for queue '\(queue.name)'")
      return
    }
    var seen = KeysRead<QueueKey>()
    for (keyNode, value) in tree.entries(of: node) {
      let context = " in queue '\(queue.name)'"
      guard let key: QueueKey = schemaKey(keyNode, of: node, seen: &seen, context: context) else { continue }
      guard !tree[value].isNull else { continue }
      switch key {
      case .maxConcurrent: queue.maxConcurrent = concurrencyLimit(value)
      case .qos: queue.qos = qualityOfService(value)
      case .resources: queue.resources = resources(value, of: "'resources' of queue '\(queue.name)'")
      }
    }
  }

  private mutating func slurm(_ node: Int32) -> SlurmSection? {
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping with 'partition', 'account', 'qos' and 'sbatch-args'")
      return nil
    }
    var section = SlurmSection()
    var seen = KeysRead<SlurmKey>()
    for (keyNode, value) in tree.entries(of: node) {
      guard let key: SlurmKey = schemaKey(keyNode, of: node, seen: &seen, context: " in 'slurm'") else { continue }
      guard !tree[value].isNull else { continue }
      switch key {
      case .partition: section.partition = name(value, of: "partition")
      case .account: section.account = name(value, of: "account")
      case .qos: section.qos = slurmQoS(value)
      case .sbatchArgs: section.sbatchArguments = arguments(value)
      }
    }
    return section
  }

  /// `qos` of `slurm`: each QoS class to the Slurm QoS its jobs are submitted with.
  private mutating func slurmQoS(_ node: Int32) -> [QualityOfService: String] {
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping of QoS classes to Slurm QoS names")
      return [:]
    }
    var map: [QualityOfService: String] = [:]
    for (keyNode, value) in tree.entries(of: node) {
      guard let qos = qualityOfService(keyNode), let name = name(value, of: "Slurm QoS") else { continue }
      map[qos] = name
    }
    return map
  }

  /// `sbatch-args`: a list of arguments, each as written.
  private mutating func arguments(_ node: Int32) -> [String] {
    guard tree[node].kind == .sequence else {
      reportWrongType(node, expected: "a list of sbatch arguments")
      return []
    }
    return tree.children(of: node).compactMap { string($0, expected: "an sbatch argument") }
  }
}
