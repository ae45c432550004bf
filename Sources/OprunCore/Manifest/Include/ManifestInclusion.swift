/// Joins the manifests a manifest includes (SPEC §15) into it: each one's jobs and queues as
/// `PREFIX:NAME`, its own dependencies and queues resolved inside it, and its `env`, `cwd`
/// and `defaults` applied to its jobs alone, so that nothing the including manifest says of
/// its own jobs changes what an included job runs. An included manifest's run-wide settings
/// (`name`, `max-concurrent`, `on-failure`, `budget`, `slurm`) are the including manifest's
/// to say, and are not used. Its `vars` are defaults under the including manifest's.
///
/// Pure: the text of each file comes from `read`, which the runtime gives.
struct ManifestInclusion {
  /// Includes nested deeper than this are an error: a chain of links could otherwise name
  /// ever longer paths to the same file.
  static let depthLimit = 16

  /// The text of the manifest at a path, or why there is none.
  let read: (String) -> Result<SourceText, Diagnostic>
  var diagnostics: DiagnosticCollector
  /// By included file, where its first inclusion is written, then where the file that
  /// includes it is, up to the manifest read first: `["B:3", "A:2"]`.
  private(set) var inclusions: [String: [String]] = [:]
  /// Each included file's place in the order files were first included, from 1 (0 is the
  /// manifest read first, and any file not included).
  private(set) var rank: [String: Int] = [:]

  /// Reads the `dotenv` files an included manifest names, from its own folder.
  let readDotenv: DotenvResolution.Reader

  init(
    read: @escaping (String) -> Result<SourceText, Diagnostic>,
    readingDotenv: @escaping DotenvResolution.Reader = { _ in .missing }, diagnostics: DiagnosticCollector
  ) {
    self.read = read
    self.readDotenv = readingDotenv
    self.diagnostics = diagnostics
  }

  /// `manifest` with every manifest it includes joined, in the order of `include`, before its
  /// own jobs and queues; `including` is the chain of files that led to it, itself last.
  mutating func joined(_ manifest: Manifest, including chain: [String]) -> Manifest {
    guard !manifest.includes.isEmpty else { return manifest }
    var jobs: [JobSpec] = []
    var queues: [QueueSpec] = []
    var includedSecrets: [Located<String>] = []
    var includedDotenvFiles: [String] = []
    var prefixes: [String: SourceLocation] = [:]
    for entry in manifest.includes {
      if let first = prefixes[entry.prefix.value] {
        let message =
          "prefix '\(entry.prefix.value)' is already used by the include at line \(first.line); "
          + "write 'prefix: NAME' to tell them apart"
        diagnostics.append(Diagnostic(at: entry.prefix.location, message))
        continue
      }
      prefixes[entry.prefix.value] = entry.prefix.location
      guard let included = load(entry, from: manifest, chain: chain) else { continue }
      let folder = PathParts.folder(of: entry.path.value)
      queues += included.queues.map { Self.prefixed($0, entry.prefix.value) }
      includedSecrets += included.secrets
      includedDotenvFiles += included.includedDotenvFiles
      includedDotenvFiles += included.dotenv.map { DotenvResolution.path(of: $0, manifestPath: included.path) }
      for job in included.jobs where job.includedFrom == nil {
        includedDotenvFiles += job.dotenv.map { DotenvResolution.path(of: $0, manifestPath: included.path) }
      }
      jobs += included.jobs.map { Self.joining($0, of: included, prefix: entry.prefix.value, folder: folder) }
    }
    var result = manifest
    result.includes = []
    result.includedDotenvFiles = includedDotenvFiles
    // A value an included file calls secret is masked wherever oprun writes it.
    for secret in includedSecrets where !result.secrets.contains(where: { $0.value == secret.value }) {
      result.secrets.append(secret)
    }
    result.jobs = jobs + manifest.jobs
    result.queues = queues + manifest.queues
    return result
  }

  /// The included manifest, decoded and with its own includes joined; nil after reporting
  /// a cycle, a file that cannot be read, or one that is not a manifest.
  private mutating func load(_ entry: IncludeSpec, from manifest: Manifest, chain: [String]) -> Manifest? {
    let written = entry.path.value
    let path = Self.normalized(
      written.hasPrefix("/") ? written : Self.join(PathParts.folder(of: manifest.path), written))
    if let start = chain.firstIndex(of: path) {
      let cycle = (chain[start...] + [path]).joined(separator: " -> ")
      diagnostics.append(Diagnostic(at: entry.path.location, "include cycle: \(cycle)"))
      return nil
    }
    guard chain.count < Self.depthLimit else {
      diagnostics.append(
        Diagnostic(at: entry.path.location, "includes nest deeper than \(Self.depthLimit) manifests"))
      return nil
    }
    let source: SourceText
    switch read(path) {
    case .success(let text): source = text
    case .failure(let problem):
      diagnostics.append(Diagnostic(at: entry.path.location, problem.message))
      return nil
    }
    if inclusions[path] == nil {
      inclusions[path] = ["\(manifest.path):\(entry.location.line)"] + (inclusions[manifest.path] ?? [])
      rank[path] = rank.count + 1
    }
    let (decoded, problems) = ManifestLoader.decode(source, variables: manifest.variables)
    diagnostics += problems.errors().diagnostics
    guard var decoded else { return nil }
    var dotenv = DotenvResolution(manifestPath: path, read: readDotenv)
    dotenv.resolve(&decoded, reportingTo: &diagnostics)
    return joined(decoded, including: chain + [path])
  }

  /// `problem` with the includes that led to its file, when it is in an included one:
  /// `... (in ci/common.yaml, included from jobs.yaml:2)`.
  func locating(_ problem: Diagnostic) -> Diagnostic {
    guard let file = problem.location?.file, let chain = inclusions[file] else { return problem }
    var located = problem
    located.message += " (in \(file), " + chain.map { "included from \($0)" }.joined(separator: ", ") + ")"
    return located
  }

  /// A queue of an included manifest, as the including one names it.
  private static func prefixed(_ queue: QueueSpec, _ prefix: String) -> QueueSpec {
    var queue = queue
    queue.name = prefix + ":" + queue.name
    return queue
  }

  /// A job of `included` (its own, or one it included in turn) as it joins the including
  /// manifest: named with `prefix`, depending on and queued in its file's names, running
  /// where its file says (`folder` is the included file's folder, as the include writes it).
  private static func joining(_ job: JobSpec, of included: Manifest, prefix: String, folder: String) -> JobSpec {
    var job = job
    if job.includedFrom == nil {
      let queue = job.queue.flatMap { name in included.queues.first { $0.name == name.value } }
      let defaults = included.defaults
      // Its file's dotenv files, then its own, then its file's env, then its own (SPEC §15).
      let files = GraphBuilder.environment(included.dotenvEntries, overriddenBy: job.dotenvEntries)
      job.env = GraphBuilder.environment(GraphBuilder.environment(files, overriddenBy: included.env), overriddenBy: job.env)
      // Read from its file's folder and folded into its env: nothing is left to resolve.
      (job.dotenv, job.dotenvEntries) = ([], [])
      job.cwd = GraphBuilder.writtenWorkingDirectory(job: job.cwd, manifest: included.cwd?.value)
      job.priority = job.priority ?? defaults.priority
      job.qos = job.qos ?? (queue?.qos == nil ? defaults.qos : nil)
      job.timeout = job.timeout ?? defaults.timeout
      job.retries = job.retries ?? defaults.retries
      job.resources = job.resources.over(queue?.resources ?? ResourceSpec()).over(defaults.resources)
      job.includedFrom = included.path
    }
    let cwd = GraphBuilder.join(folder, job.cwd ?? ".")
    job.cwd = cwd == "." ? nil : cwd
    job.name = prefix + ":" + job.name
    job.dependencies = job.dependencies.map { Located(prefix + ":" + $0.value, at: $0.location) }
    if let queue = job.queue {
      // Its file's main queue is the including manifest's main queue.
      job.queue = queue.value == included.name ? nil : Located(prefix + ":" + queue.value, at: queue.location)
    }
    return job
  }

  /// `base/path` without `.` components and with each `name/..` taken out, as far as the
  /// path itself says: the same file included by two routes is one file.
  static func normalized(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == "..", let last = parts.last, last != ".." {
        parts.removeLast()
        continue
      }
      parts.append(part)
    }
    let joined = parts.joined(separator: "/")
    if path.hasPrefix("/") { return "/" + joined }
    return joined.isEmpty ? "." : joined
  }

  private static func join(_ base: String, _ path: String) -> String {
    base == "." ? path : base + "/" + path
  }
}
