import Glibc
import OprunCore

/// `oprun cache stats` and `oprun cache clean` (SPEC §14): what a folder cache holds and how
/// the last runs used it, and emptying or trimming it. The cache is the one a run would use:
/// `--cache`, else `OPRUN_CACHE`, else the manifest's `cache`.
public enum CacheCommandLine {
  /// How many of the last runs `stats` shows one by one.
  static let runsShown = 10

  /// Prints what the folder cache holds and the counts of its last runs; returns oprun's
  /// exit status (2 when no folder cache is named or the manifest has problems).
  public static func stats(cache option: String?, manifestWords: [String], json: Bool) -> Int32 {
    guard let store = folderStore(option: option, manifestWords: manifestWords) else { return ExitStatus.usage }
    let files = store.storedFiles()
    let runs = store.runCounts()
    let summary = CacheFolderSummary(store: store, files: files, runs: runs)
    RunCommandLine.writeAll(STDOUT_FILENO, json ? summary.json : summary.text)
    return ExitStatus.success
  }

  /// Removes every entry and blob of the folder cache, or, with `keep`, the least recently
  /// used until `keep` bytes are left; says what it removed.
  public static func clean(cache option: String?, manifestWords: [String], keep: String?) -> Int32 {
    var keptBytes: Int?
    if let keep {
      guard let bytes = keep == "0" ? 0 : ByteSize.bytes(keep) else {
        RunCommandLine.writeAll(2, "oprun: error: --keep: '\(keep)' is not a size (write 512M, 2G, 1.5G or bytes)\n")
        return ExitStatus.usage
      }
      keptBytes = bytes
    }
    guard let store = folderStore(option: option, manifestWords: manifestWords) else { return ExitStatus.usage }
    let before = store.storedFiles()
    let removed: Int
    if let keptBytes {
      removed = store.trim(to: keptBytes)
    } else {
      removed = store.removeEverything()
    }
    let left = store.storedFiles()
    let files = before.count - left.count
    RunCommandLine.writeAll(
      STDOUT_FILENO,
      "removed \(counted(files, "file")) (\(MemoryText.text(bytes: removed))) from \(store.name); "
        + "\(counted(left.count, "file")) (\(MemoryText.text(bytes: left.reduce(0) { $0 + $1.size }))) left\n")
    return ExitStatus.success
  }

  /// The folder cache a run of `manifestWords` would use, with `option` over the rest; nil,
  /// having said why, when there is none or it is a server.
  private static func folderStore(option: String?, manifestWords: [String]) -> FolderCacheStore? {
    let environment = getenv("OPRUN_CACHE").map { String(cString: $0) }
    var section: CacheSection?
    var manifestFolder = AbsolutePath.of(".")
    if (option ?? environment ?? "").isEmpty {
      var configuration = RunConfiguration(words: manifestWords)
      configuration.dryRun = true
      switch RunPlan.prepare(configuration) {
      case .success(let prepared):
        section = prepared.plan.graph.manifest.cache
        manifestFolder = AbsolutePath.of(prepared.plan.graph.manifestFolder)
      case .failure(let message):
        RunCommandLine.writeAll(2, message)
        return nil
      }
    }
    let settings = CacheSettings.resolve(
      option: option, environment: environment, section: section, readOnly: false, disabled: false,
      manifestFolder: manifestFolder)
    switch settings?.place {
    case .folder(let path):
      return FolderCacheStore(root: path, maxSize: settings?.maxSize)
    case .server(let url):
      RunCommandLine.writeAll(
        2, "oprun: the cache is a server (\(url)): its server keeps what it holds; `oprun cache` reads a folder cache\n"
      )
      return nil
    case nil:
      RunCommandLine.writeAll(
        2, "oprun: no cache is configured: give --cache PATH, set OPRUN_CACHE, or add `cache:` to the manifest\n")
      return nil
    }
  }
}

/// What `oprun cache stats` says of a folder cache.
struct CacheFolderSummary {
  var store: FolderCacheStore
  var entries: Int
  var blobs: Int
  var bytes: Int
  var runs: [(time: Int, hits: Int, misses: Int, stored: Int)]

  init(
    store: FolderCacheStore, files: [FolderCacheStore.StoredFile],
    runs: [(time: Int, hits: Int, misses: Int, stored: Int)]
  ) {
    self.store = store
    entries = files.count { $0.isEntry }
    blobs = files.count - entries
    bytes = files.reduce(0) { $0 + $1.size }
    self.runs = Array(runs.suffix(CacheCommandLine.runsShown))
  }

  /// ```
  /// folder /home/ada/.cache/oprun: 12 entries, 30 blobs, 45.2 MB (max-size 10.0 GB)
  /// last 2 runs: 15 hits, 3 misses (83 % hit), 3 stored
  ///   2026-11-28 21:30:05  12 hits · 0 misses · 0 stored
  /// ```
  var text: String {
    var lines = [
      "\(store.name): \(counted(entries, "entry", plural: "entries")), \(counted(blobs, "blob")), "
        + MemoryText.text(bytes: bytes) + (store.maxSize.map { " (max-size \(MemoryText.text(bytes: $0)))" } ?? "")
    ]
    if runs.isEmpty {
      lines.append("no run has used it yet")
    } else {
      let hits = runs.reduce(0) { $0 + $1.hits }
      let misses = runs.reduce(0) { $0 + $1.misses }
      let stored = runs.reduce(0) { $0 + $1.stored }
      let rate = hits + misses > 0 ? " (\(hits * 100 / (hits + misses)) % hit)" : ""
      lines.append(
        "last \(counted(runs.count, "run")): \(counted(hits, "hit")), \(counted(misses, "miss", plural: "misses"))"
          + "\(rate), \(stored) stored")
      for run in runs.reversed() {
        let when = TimeText.localTime(Double(run.time)) ?? String(run.time)
        lines.append(
          "  \(when)  \(counted(run.hits, "hit")) · \(counted(run.misses, "miss", plural: "misses")) · \(run.stored) stored"
        )
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `{"cache", "entries", "blobs", "bytes", "max_size", "runs": [{"time", "hits", "misses",
  /// "stored"}]}` on one line, runs newest first; `time` in seconds since 1970.
  var json: String {
    var object = JSONObjectWriter()
    object.field("cache", store.root)
    object.field("entries", entries)
    object.field("blobs", blobs)
    object.field("bytes", bytes)
    object.field("max_size", store.maxSize)
    object.field("runs", objects: runs.reversed()) { run, member in
      member.field("time", run.time)
      member.field("hits", run.hits)
      member.field("misses", run.misses)
      member.field("stored", run.stored)
    }
    object.close(newline: true)
    return String(decoding: object.bytes, as: UTF8.self)
  }
}
