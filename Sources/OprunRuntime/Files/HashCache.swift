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
  private let loading: PendingValue<SavedHashes>?
  private let state = Locked(State())

  private struct State {
    /// Nil until taken from `loading`.
    var saved: SavedHashes?
    /// The entries recorded since loading, which replace saved ones of the same path: few,
    /// as most files are found unchanged.
    var recorded: [String: Entry] = [:]
    /// The paths of `recorded` not yet written to the file.
    var unsaved: Set<String> = []
    /// Files this run wrote with bytes it knew (``vouch(for:status:digest:writtenAt:)``), each trusted
    /// while its `stat` is exactly what it was just after the writing.
    var vouched: [String: Entry] = [:]
    /// The file as this cache last read or wrote it; nil when it is to be written whole.
    var layout: FileLayout?
  }

  /// The cache saved in `folder` (a manifest's `.oprun`), or an empty one when there is
  /// none, or it is damaged or from another version; nil `folder` keeps it in memory only.
  public init(folder: String?) {
    let file = folder.map { StateFolder(path: $0).hashes }
    self.file = file
    loading = file.map { file in PendingValue(on: HashingPool.shared) { HashCacheFormat.load(from: file) ?? .empty } }
  }

  /// `body` given the saved entries, once loaded, and the state.
  private func withLoadedState<T>(_ body: (SavedHashes, inout State) -> T) -> T {
    state.withLock { state in
      if state.saved == nil {
        let saved = loading?.value ?? .empty
        state.saved = saved
        state.layout = saved.layout
      }
      return body(state.saved!, &state)
    }
  }

  /// How many files it knows.
  public var count: Int {
    withLoadedState { saved, state in saved.count + state.recorded.keys.count { saved.offset(of: $0) == nil } }
  }

  /// The entries as they are now, to look up many files from several threads without
  /// taking the lock for each: what is recorded later is not in them.
  var entries: Entries {
    withLoadedState { saved, state in Entries(saved: saved, recorded: state.recorded, vouched: state.vouched) }
  }

  struct Entries: Sendable {
    fileprivate let saved: SavedHashes
    fileprivate let recorded: [String: Entry]
    fileprivate let vouched: [String: Entry]

    /// `body` given a way to look up many files: see ``SavedHashes/withLookup(_:)``.
    func withLookup<T>(_ body: (Lookup) -> T) -> T {
      saved.withLookup { saved in body(Lookup(saved: saved, recorded: recorded, vouched: vouched)) }
    }
  }

  struct Lookup {
    fileprivate let saved: SavedHashes.Lookup
    fileprivate let recorded: [String: Entry]
    fileprivate let vouched: [String: Entry]

    /// The digest recorded for `path` if its file, now `status`, cannot have changed since.
    func digest(of path: String, status: FileStatus) -> String? {
      if !vouched.isEmpty, let entry = vouched[path], entry.status == status { return entry.digest }
      if !recorded.isEmpty, let entry = recorded[path] {
        return HashCache.trusts(entry.status, hashedAt: entry.hashedAt, now: status) ? entry.digest : nil
      }
      guard let offset = saved.offset(of: path) else { return nil }
      let stamp = saved.stamp(at: offset)
      return HashCache.trusts(stamp.status, hashedAt: stamp.hashedAt, now: status) ? saved.digest(at: offset) : nil
    }
  }

  /// Whether an entry made at `hashedAt` of a file then `recorded` still holds for the file
  /// whose `stat` is now `status`.
  static func trusts(_ recorded: FileStatus, hashedAt: Timestamp, now status: FileStatus) -> Bool {
    guard status.isUnwritten(since: recorded), recorded.changed == status.changed else { return false }
    let safelyBefore = hashedAt.minus(seconds: racyMargin)
    return recorded.modified < safelyBefore && recorded.changed < safelyBefore
  }

  /// Records what reading `path` gave.
  func record(_ path: String, _ entry: Entry) {
    withLoadedState { saved, state in
      guard (state.recorded[path] ?? saved.offset(of: path).map(saved.entry(at:))) != entry else { return }
      state.recorded[path] = entry
      state.unsaved.insert(path)
    }
  }

  /// Records that this process has just written `path` (now `status`) with bytes whose
  /// SHA-256 is `digest`, as a restore from the cache does: for the rest of the run the file
  /// is not read again while its `stat` is exactly that. Saved as an ordinary entry, which the
  /// racy-file rule keeps from being trusted by a later run until the file has aged.
  func vouch(for path: String, status: FileStatus, digest: String, writtenAt: Timestamp) {
    let entry = Entry(status: status, hashedAt: writtenAt, digest: digest)
    record(path, entry)
    withLoadedState { _, state in state.vouched[path] = entry }
  }

  /// Writes what was recorded since the cache was loaded or saved to its file: appended as a
  /// block while the appended blocks stay small beside the first, so that one new hash costs
  /// its own bytes; otherwise the whole cache in a new file renamed over the old, so a reader
  /// sees one or the other. A folder that cannot be written is done without: the cache only
  /// saves time.
  public func save() {
    guard let file else { return }
    let pending: (SavedHashes, [String: Entry], Set<String>, FileLayout?)? = withLoadedState { saved, state in
      guard !state.unsaved.isEmpty else { return nil }
      defer { state.unsaved = [] }
      return (saved, state.recorded, state.unsaved, state.layout)
    }
    guard let (saved, recorded, unsaved, layout) = pending else { return }
    let fresh = recorded.filter { unsaved.contains($0.key) }
    var written: FileLayout?
    if var layout, (layout.appended + HashCacheFormat.blockSize(of: fresh)) * Self.appendedShare <= layout.whole,
      let size = HashCacheFormat.append(fresh, to: file)
    {
      layout.appended += size
      written = layout
    } else {
      written = HashCacheFormat.rewrite(saved, recorded, to: file)
    }
    state.withLock { state in
      state.layout = written
      if written == nil { state.unsaved.formUnion(unsaved) }
    }
  }

  /// How many times the appended blocks' size the first block must hold for one more to be
  /// appended: a loaded cache holds at most a quarter more than it needs.
  static let appendedShare = 4
}
