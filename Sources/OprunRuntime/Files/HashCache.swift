import Glibc

/// The hashes of files already read, by recorded path, kept in `.oprun/hashes` (SPEC §10): a
/// file whose `stat` is what it was when hashed is not read again. Shared by threads.
///
/// A racy file, as git calls it, is not trusted: one changed within a second of its hashing
/// (the file system's timestamps are coarser than an edit) may have changed again since
/// with the same size and times. It is read again, and its new entry is trusted later.
public final class HashCache: Sendable {
  struct Entry: Equatable, Sendable {
    var status: FileStatus
    /// When the reading that gave `digest` began.
    var hashedAt: Timestamp
    /// 64 lower-case hex digits.
    var digest: String
  }

  /// How much older than its hashing a file's times must be for its entry to be trusted:
  /// more than any file system's timestamp granularity.
  static let racyMargin: Int64 = 1

  /// The file holding the cache; nil for one kept in memory only.
  let file: String?
  /// The saved entries, read on a hashing thread while the run starts and the files are
  /// walked; taken into `state` at its first use.
  private let loading: PendingValue<[String: Entry]>?
  private let state: Locked<(entries: [String: Entry], changed: Bool, loaded: Bool)>

  /// The cache saved in `folder` (a manifest's `.oprun`), or an empty one when there is
  /// none, or it is damaged or from another version; nil `folder` keeps it in memory only.
  public init(folder: String?) {
    let file = folder.map { $0 + "/hashes" }
    self.file = file
    loading = file.map { file in PendingValue(on: HashingPool.shared) { HashCacheFormat.load(from: file) ?? [:] } }
    state = Locked(([:], false, loading == nil))
  }

  /// `body` given the state, once the saved entries are in it.
  private func withLoadedState<T>(_ body: (inout (entries: [String: Entry], changed: Bool, loaded: Bool)) -> T) -> T {
    state.withLock { state in
      if !state.loaded, let loading {
        state.entries = loading.value
        state.loaded = true
      }
      return body(&state)
    }
  }

  /// How many files it knows.
  public var count: Int { withLoadedState { $0.entries.count } }

  /// The entries as they are now, to look up many files from several threads without
  /// taking the lock for each: what is recorded later is not in them.
  var entries: Entries { Entries(entries: withLoadedState { $0.entries }) }

  struct Entries: Sendable {
    fileprivate let entries: [String: Entry]

    /// The digest recorded for `path` if its file, now `status`, cannot have changed since.
    func digest(of path: String, status: FileStatus) -> String? {
      guard let entry = entries[path], HashCache.trusts(entry, now: status) else { return nil }
      return entry.digest
    }
  }

  /// Whether `entry` still holds for a file whose `stat` is now `status`.
  static func trusts(_ entry: Entry, now status: FileStatus) -> Bool {
    let recorded = entry.status
    guard recorded.device == status.device, recorded.inode == status.inode, recorded.size == status.size,
      recorded.modified == status.modified, recorded.changed == status.changed
    else { return false }
    let safelyBefore = entry.hashedAt.minus(seconds: racyMargin)
    return recorded.modified < safelyBefore && recorded.changed < safelyBefore
  }

  /// Records what reading `path` gave.
  func record(_ path: String, _ entry: Entry) {
    withLoadedState { state in
      guard state.entries[path] != entry else { return }
      state.entries[path] = entry
      state.changed = true
    }
  }

  /// Writes the cache to its file when something changed since it was loaded or saved:
  /// a new file renamed over the old, so a reader sees one or the other. A folder that
  /// cannot be written is done without: the cache only saves time.
  public func save() {
    guard let file else { return }
    let entries: [String: Entry]? = withLoadedState { state in
      guard state.changed else { return nil }
      state.changed = false
      return state.entries
    }
    guard let entries else { return }
    if !HashCacheFormat.save(entries, to: file) { state.withLock { $0.changed = true } }
  }
}
