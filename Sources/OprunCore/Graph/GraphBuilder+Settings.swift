extension GraphBuilder {
  /// A job with its queue's QoS (more particular than `defaults`), `defaults`, and the manifest's `env` and `cwd` applied
  /// (for an included job, its own file's, applied when it joined).
  func node(
    id: JobID, spec: JobSpec, queue: QueueID, qos queueQoS: QualityOfService?, resources queueResources: ResourceSpec,
    dependencies: [JobID]
  ) -> JobNode {
    // An included job's own file's settings were applied when it joined.
    let isIncluded = spec.includedFrom != nil
    let defaults = isIncluded ? JobDefaults() : manifest.defaults
    let writtenCwd = isIncluded ? spec.cwd : Self.writtenWorkingDirectory(job: spec.cwd, manifest: manifest.cwd?.value)
    var node = JobNode(
      id: id, name: spec.name, queue: queue, dependencies: dependencies,
      explicitPriority: spec.priority ?? defaults.priority,
      qos: spec.qos ?? queueQoS ?? defaults.qos ?? .default,
      commands: spec.commands, completion: spec.completion, runIf: spec.runIf,
      timeout: spec.timeout ?? defaults.timeout, retries: spec.retries ?? defaults.retries ?? 0,
      env: isIncluded ? spec.env : Self.environment(sharedEnvironment(under: spec), overriddenBy: spec.env),
      cwd: writtenCwd.map { Self.join(PathParts.folder(of: manifest.path), $0) }, writtenCwd: writtenCwd,
      barrier: spec.barrier, interactive: spec.interactive, location: spec.location,
      instance: spec.instance)
    // Each was checked as written; a matrix value holds nothing that could spoil one.
    node.inputs = spec.inputs.compactMap { try? PathPattern.parse($0.value).get() }
    node.outputs = spec.outputs.compactMap { try? PathPattern.parse($0.value).get() }
    node.declaresFiles = spec.declaresFiles
    node.description = spec.description
    node.cache = spec.cache
    node.cacheEnv = spec.cacheEnv
    node.resources = spec.resources.over(queueResources).over(defaults.resources)
    return node
  }

  /// What the dotenv files set (the manifest's, then the job's), under the manifest's `env`.
  func sharedEnvironment(under spec: JobSpec) -> [EnvironmentEntry] {
    guard !manifest.dotenvEntries.isEmpty || !spec.dotenvEntries.isEmpty else { return manifest.env }
    let files = Self.environment(manifest.dotenvEntries, overriddenBy: spec.dotenvEntries)
    return Self.environment(files, overriddenBy: manifest.env)
  }

  /// The manifest's variables, then the job's; a job's variable replaces the manifest's of the same name.
  static func environment(_ shared: [EnvironmentEntry], overriddenBy own: [EnvironmentEntry]) -> [EnvironmentEntry] {
    guard !own.isEmpty else { return shared }
    guard !shared.isEmpty else { return own }
    let ownNames = Set(own.map(\.name))
    return shared.filter { !ownNames.contains($0.name) } + own
  }

  /// A job's `cwd` within the manifest's `cwd`, before the manifest's folder is put in
  /// front: relative to that folder unless absolute; nil when neither is written.
  static func writtenWorkingDirectory(job: String?, manifest: String?) -> String? {
    switch (manifest, job) {
    case (nil, nil): nil
    case (let manifest?, nil): manifest
    case (let manifest, let job?): manifest.map { join($0, job) } ?? job
    }
  }

  /// `base/path`, or `path` alone when it is absolute or `base` is the current directory.
  static func join(_ base: String, _ path: String) -> String {
    if path == "." || path.isEmpty { return base }
    if path.hasPrefix("/") || base == "." || base.isEmpty { return path }
    return base.hasSuffix("/") ? base + path : base + "/" + path
  }
}
