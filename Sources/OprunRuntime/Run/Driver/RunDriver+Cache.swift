import Glibc
import OprunCore

/// The cache of outputs (SPEC §14): beside the files' check, never a second road into the
/// run. A job its files say runs is looked up first; a hit is restored and finishes through
/// the engine as `restored`, a miss gets the decision its files made; a job that ran and
/// succeeded is stored in the background. Every answer comes back as a step.
extension RunDriver {
  /// The cache's answer about one job.
  enum CacheStep {
    case lookedUp(Result<CacheEntry?, CacheProblem>)
    case restored(CacheEntry, Result<Int, CacheProblem>)
    case stored(key: String, Result<Int, CacheProblem>)
  }

  /// The job's files say it runs (`decision`): when the cache may hold its outputs, asks it
  /// first and holds the decision back. True when it does.
  func lookUpInCache(_ job: JobID, decision: RunDecision) -> Bool {
    guard case .runs = decision, let cache = caches?.cache, graph.jobs[job].isCached,
      let parts = files?.cacheKeyParts(of: job)
    else { return false }
    let key = cache.key(
      fingerprint: parts.fingerprint, inputs: parts.inputs, dependencyResults: parts.dependencies,
      cacheEnv: graph.jobs[job].cacheEnv)
    // -B runs every job: it is stored, never restored.
    if files!.tracking.force {
      caches!.setKey(of: job, key)
      return false
    }
    caches!.beginLookup(of: job, key: key, decision: decision)
    cache.lookUp(key) { [unowned self] answer in take(.cache(job, .lookedUp(answer))) }
    return true
  }

  func receive(_ step: CacheStep, of job: JobID) {
    switch step {
    case .lookedUp(let answer):
      guard caches?.heldDecision(of: job) != nil, let key = caches?.key(of: job) else { return }
      switch answer {
      case .success(let entry?) where !engine.isCancelled(job):
        restore(entry, of: job)
      case .success:
        missed(job, key: key, problem: nil)
      case .failure(let problem):
        missed(job, key: key, problem: problem)
      }
    case .restored(let entry, .success(let bytes)):
      guard let key = caches?.key(of: job) else { return }
      caches!.restored(job, saving: entry.duration)
      publish(.cacheHit(job: job, key: key, bytes: bytes))
      for piece in entry.printed { publish(.output(job: job, stream: piece.stream, text: piece.text)) }
      if entry.printedLeftOut > 0 {
        let note = "oprun: \(entry.printedLeftOut) more lines it printed were not kept in the cache\n"
        publish(.output(job: job, stream: .stderr, text: Array(note.utf8)))
      }
      guard let checker = files?.tracking.checker else { return }
      checker.snapshot(.outputs(of: graph.jobs[job], in: graph)) { [unowned self] snapshot in
        take(.files(job, .outputsAfterRestore(snapshot)))
      }
    case .restored(_, .failure(let problem)):
      guard let key = caches?.key(of: job) else { return }
      missed(job, key: key, problem: problem)
    case .stored(let key, let result):
      switch result {
      case .success(let bytes):
        caches?.noteStored()
        publish(.cacheStored(job: job, key: key, bytes: bytes))
      case .failure(let problem):
        warnOfCache(problem, job: job)
      }
    }
  }

  private func restore(_ entry: CacheEntry, of job: JobID) {
    guard let cache = caches?.cache, let parts = files?.cacheKeyParts(of: job) else { return }
    let node = graph.jobs[job]
    let restore = CacheRestore(
      manifestFolder: AbsolutePath.of(graph.manifestFolder),
      jobFolder: AbsolutePath.of(node.cwd ?? graph.manifestFolder),
      outputs: node.outputs,
      currentOutputs: parts.outputs.filter { !isInCacheFolder($0, cache: cache) })
    cache.restore(entry, restore) { [unowned self] result in take(.cache(job, .restored(entry, result))) }
  }

  /// No usable entry: the job runs, as its files decided; a problem is worth one warning a run.
  private func missed(_ job: JobID, key: String, problem: CacheProblem?) {
    guard let decision = caches?.missed(job) else { return }
    publish(.cacheMiss(job: job, key: key))
    if let problem { warnOfCache(problem, job: job) }
    engine.checked(job, decision: decision)
  }

  private func warnOfCache(_ problem: CacheProblem, job: JobID) {
    guard caches?.shouldWarn() == true, let cache = caches?.cache else { return }
    publish(
      .warning(
        "cache \(cache.store.name): \(problem.message) (job \(graph.reportedName(job: job))); "
          + "jobs it cannot serve run, and this is the only warning of this run about it"))
  }

  /// A job finished: one that ran and succeeded is stored under the key it was looked up by,
  /// in the background; nothing waits for it but the run's end.
  func storeInCache(after transition: Transition) {
    guard let caches, !caches.cache.readOnly, let key = caches.key(of: transition.job) else { return }
    let job = transition.job
    let printed = self.caches!.takePrinted(of: job)
    guard transition.outcome == .succeeded, !transition.cached, !transition.upToDate, !transition.resumed,
      let outputs = transition.files?.outputs.records
    else { return }
    // Only regular files under the manifest's folder can be put back where they were; a
    // restore's temporary file left by an interrupted run is no output of the job.
    guard
      outputs.allSatisfy({
        $0.kind == .file && CacheEntry.isPlainRelativePath($0.path)
          && !PathParts.fileName(of: $0.path).hasPrefix(CacheRestore.temporaryPrefix)
      }), !namesALink(graph.jobs[job])
    else { return }
    if let inside = outputs.first(where: { isInCacheFolder($0.path, cache: caches.cache) }) {
      warnOfCache(
        CacheProblem("the cache folder holds \(inside.path), one of the job's outputs: its outputs are not stored"),
        job: job)
      return
    }
    caches.cache.store(
      key, outputs: outputs, printed: printed, duration: transition.duration ?? 0,
      manifestFolder: AbsolutePath.of(graph.manifestFolder)
    ) { [unowned self] result in take(.cache(job, .stored(key: key, result))) }
  }

  /// Whether `path` (relative to the manifest's folder) lies in the cache's own folder: a job
  /// whose outputs take in the cache would store the cache in itself, and a restore of it
  /// would remove entries.
  private func isInCacheFolder(_ path: String, cache: OutputCache) -> Bool {
    guard let folder = (cache.store as? FolderCacheStore)?.root else { return false }
    let absolute = AbsolutePath.of(graph.manifestFolder) + "/" + path
    return absolute.hasPrefix(folder + "/")
  }

  /// Whether an output the job names without a wildcard is a symbolic link: its snapshot
  /// holds what the link points to, and an entry could not put the link back.
  private func namesALink(_ node: JobNode) -> Bool {
    let folder = AbsolutePath.of(node.cwd ?? graph.manifestFolder)
    return node.outputs.contains { pattern in
      guard !pattern.isExclusion, pattern.literalPrefix.rest.isEmpty else { return false }
      let path = pattern.isAbsolute ? pattern.body : folder + "/" + pattern.body
      var status = stat()
      return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }
  }

  /// Stores still under way: the run waits for them before it ends.
  public var isStoringInCache: Bool { (caches?.cache.storesUnderWay ?? 0) > 0 }

  /// The cache's counts for this run, once it ended.
  public var cacheCounts: (hits: Int, misses: Int, stored: Int)? {
    caches.map { ($0.hits, $0.misses, $0.stored) }
  }
}
