import Glibc
import OprunCore

extension FileSetRequest {
  /// What `job` reads: its inputs, less what its own outputs match.
  static func inputs(of job: JobNode, in graph: JobGraph) -> FileSetRequest {
    FileSetRequest(
      folder: AbsolutePath.of(job.cwd ?? graph.manifestFolder), manifestFolder: AbsolutePath.of(graph.manifestFolder),
      patterns: job.inputs, excluded: job.outputs)
  }

  /// What `job` writes.
  static func outputs(of job: JobNode, in graph: JobGraph) -> FileSetRequest {
    FileSetRequest(
      folder: AbsolutePath.of(job.cwd ?? graph.manifestFolder), manifestFolder: AbsolutePath.of(graph.manifestFolder),
      patterns: job.outputs)
  }
}

/// Looks at files for the run driver (SPEC §10): it walks and hashes away from the driver's
/// thread, so that signals, output, other jobs and control requests go on meanwhile, and
/// hands each snapshot back on that thread, later — never from inside the call.
public protocol FileChecking: AnyObject {
  func snapshot(_ request: FileSetRequest, then deliver: @escaping (FileSnapshot) -> Void)
  /// Drops what was looked at of `request` before it was asked for: another run may have
  /// changed those files since, and the next snapshot must look at them as they are.
  func forgetEarlierLook(at request: FileSetRequest)
}

extension FileChecking {
  public func forgetEarlierLook(at request: FileSetRequest) {}
}

extension FileSnapshotDelivery: FileChecking {}

extension FileHasher {
  /// The hasher of the manifest at `manifestPath`, its cache in the manifest's `.oprun`.
  static func forManifest(at manifestPath: String) -> FileHasher {
    FileHasher(cacheFolder: StateFolder.resolved(manifestPath: manifestPath).path)
  }

  /// Begins the snapshots a run of `graph` asks for first, so that the files are walked
  /// while the journals are read and the run is set up: the inputs and outputs of each job
  /// that declares some and waits for no other job. A run asks for them as it starts.
  func prefetchFirstChecks(of graph: JobGraph) {
    for job in graph.jobs where job.tracksFiles && job.dependencies.isEmpty && !job.barrier && job.runIf != .failure {
      prefetch(.inputs(of: job, in: graph))
      prefetch(.outputs(of: job, in: graph))
    }
  }
}

extension FilePlan {
  /// `--dry-run`'s plan, the files of each tracked job looked at now, on this thread and the
  /// hashing threads; only the hash cache is written.
  /// With a `cache`, a job that would run says whether the cache would restore it instead,
  /// asked one job after another (the run asks them all at once).
  init(
    graph: JobGraph, fingerprints: [JobFingerprint], force: Bool, resumePlan: ResumePlan?,
    records: [String: JournalRecord], manifestPath: String, hasher: FileHasher, cache: CacheSettings? = nil
  ) {
    let inputs = FileListings(.inputs, manifestPath: manifestPath)
    let outputs = FileListings(.outputs, manifestPath: manifestPath)
    let store = cache?.store(lookingOnly: true)
    let platform = OutputCache.platform
    let manifestFolder = AbsolutePath.of(graph.manifestFolder)
    let foreseen = ForeseenRestores()
    self.init(
      graph: graph, fingerprints: fingerprints, force: force, resumePlan: resumePlan,
      record: { records[graph.jobs[$0].name] }, recordedInputs: { inputs.listing(digest: $0) },
      recordedOutputs: { outputs.listing(digest: $0) },
      files: { job in
        let node = graph.jobs[job]
        let inputs = foreseen.applied(
          to: hasher.snapshot(.inputs(of: node, in: graph)), patterns: node.inputs,
          jobFolder: AbsolutePath.of(node.cwd ?? graph.manifestFolder), manifestFolder: manifestFolder)
        return (inputs, hasher.snapshot(.outputs(of: node, in: graph)))
      },
      restoredResult: { job, check in
        guard let store else { return nil }
        let node = graph.jobs[job]
        let key = OutputCache.key(
          platform: platform, fingerprint: check.fingerprint.text, inputs: check.inputs.digest,
          dependencyResults: check.dependencyResults.map(\.recorded),
          environment: node.cacheEnv.map { name in (name, getenv(name).map { String(cString: $0) }) })
        guard let bytes = try? store.entry(key: key), case .success(let entry) = CacheEntry.decode(bytes) else {
          return nil
        }
        let restore = CacheRestore(
          manifestFolder: manifestFolder, jobFolder: AbsolutePath.of(node.cwd ?? graph.manifestFolder),
          outputs: node.outputs, currentOutputs: [])
        guard entry.files.allSatisfy({ restore.refusal(of: $0.path) == nil }) else { return nil }
        let files = entry.files.map { FileRecord(path: $0.path, kind: .file, digest: $0.sha256) }
        foreseen.files += files
        return .unchanged(FileSnapshot(files: ForeseenRestores.sorted(files), unmatchedPatterns: []).digest)
      })
    hasher.cache.save()
  }
}

/// The files `-n` foresees the cache restoring, in the order it decided the jobs: a job
/// that reads what a restored dependency writes is decided on those files, as the run
/// would decide it once they are in place.
private final class ForeseenRestores {
  var files: [FileRecord] = []

  /// `inputs` as they will be once the foreseen files are restored: each foreseen file the
  /// job's input `patterns` match takes the place of what is there now.
  func applied(to inputs: FileSnapshot, patterns: [PathPattern], jobFolder: String, manifestFolder: String)
    -> FileSnapshot
  {
    let matched = files.filter { file in
      CacheRestore.matches(
        manifestFolder + "/" + file.path, patterns, jobFolder: jobFolder, manifestFolder: manifestFolder)
    }
    guard !matched.isEmpty else { return inputs }
    let replaced = Set(matched.map(\.path))
    return FileSnapshot(
      files: Self.sorted(inputs.files.filter { !replaced.contains($0.path) } + matched),
      unmatchedPatterns: inputs.unmatchedPatterns)
  }

  /// In the order snapshots keep files: by path, byte by byte.
  static func sorted(_ files: [FileRecord]) -> [FileRecord] {
    files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
  }
}
