import Glibc
import OprunCore

/// Where a manifest's journals live: `.oprun/runs/` in the manifest's folder, one
/// `RUN-ID.ndjson` per run (SPEC §9). Several manifests may share a folder; a journal
/// belongs to the manifest its header names (by file name, so that a clone in another
/// folder, with `.oprun/` restored from a cache, still finds its runs).
public struct JournalFolder: Sendable {
  /// The `.oprun/` it is in.
  public let state: StateFolder
  /// `.oprun/runs` beside the manifest.
  public var path: String { state.runs }
  /// The manifest's file name.
  public let manifestName: String

  /// Journals are kept for this many runs of a manifest; older ones are removed.
  public static let keptRuns = 20
  /// A journal longer than this is not read (a 100,000-job run writes about 25 MB).
  static let maximumSize = 1 << 30

  public init(manifestPath: String) {
    state = StateFolder(manifestPath: manifestPath)
    manifestName = PathParts.fileName(of: manifestPath)
  }

  /// One journal of this manifest, as its header describes it.
  public struct Entry: Sendable {
    public var file: String
    public var header: JournalHeader
  }

  /// This manifest's journals, oldest first, and the warnings about what could not be read:
  /// the folder itself (no folder at all is no warning: no run yet), a file that cannot be
  /// opened, and, in one warning, the files that are no journal (no header line).
  public func entries() -> (entries: [Entry], warnings: [String]) {
    var entries: [Entry] = []
    var warnings: [String] = []
    var notJournals: [String] = []
    let names: [String]
    switch journalFileNames() {
    case .success(let found): names = found
    case .failure(let failure): return ([], ["cannot read the journals in \(path): \(failure.message)"])
    }
    for name in names {
      let file = path + "/" + name
      switch Self.header(of: file) {
      case .success(let header?):
        if PathParts.fileName(of: header.manifest) == manifestName { entries.append(Entry(file: file, header: header)) }
      case .success(nil):
        notJournals.append(file)
      case .failure(.system(ENOENT)):
        continue  // removed since the folder was listed: another run pruned it
      case .failure(let failure):
        warnings.append("cannot read the journal \(file): \(failure.message); ignored")
      }
    }
    if let first = notJournals.min() {
      let others = notJournals.count > 1 ? " and \(counted(notJournals.count - 1, "other file"))" : ""
      warnings.append("\(first)\(others): not a journal (no header line); ignored")
    }
    entries.sort { ($0.header.start, $0.header.run) < ($1.header.start, $1.header.run) }
    return (entries, warnings)
  }

  /// The header of the journal `file`, read from its first line alone; nil when it has none
  /// (or is no regular file); the errno when it cannot be opened or read.
  static func header(of file: String) -> Result<JournalHeader?, FileContents.Failure> {
    // A header is a few hundred bytes, unless a run was given very many targets.
    for count in [4 << 10, 1 << 20, 64 << 20] {
      let prefix: [UInt8]
      switch FileContents.readPrefix(path: file, count: count) {
      case .success(let bytes): prefix = bytes
      case .failure(.system(let error)): return .failure(.system(error))
      case .failure: return .success(nil)
      }
      guard let newline = prefix.firstIndex(of: UInt8(ascii: "\n")) else {
        if prefix.count < count { return .success(nil) }
        continue
      }
      return .success(Journal.read(Array(prefix[...newline])).header)
    }
    return .success(nil)
  }

  /// The RUN-IDs of every journal in the folder, whichever manifest it belongs to: the
  /// names of its `RUN-ID.ndjson` files, sorted.
  public func runIDs() -> [String] {
    ((try? journalFileNames().get()) ?? []).map { String($0.dropLast(".ndjson".count)) }.sorted()
  }

  /// Where run `id`'s journal is, whether or not it exists.
  public func file(ofRun id: String) -> String {
    path + "/" + id + ".ndjson"
  }

  /// The closing line of `entry`'s journal, read from its end alone (a list of runs need not
  /// read 100,000 job lines each); nil when its last line is no end line (oprun was killed).
  func end(of entry: Entry) -> JournalEnd? {
    guard case .success(var tail) = FileContents.readSuffix(path: entry.file, count: 64 << 10),
      tail.last == UInt8(ascii: "\n")
    else { return nil }
    tail.removeLast()
    let lastLine = tail.lastIndex(of: UInt8(ascii: "\n")).map { tail.index(after: $0) } ?? tail.startIndex
    return Journal.read(Array(tail[lastLine...]) + [UInt8(ascii: "\n")]).end
  }

  /// The journal of `entry`, or why it cannot be read.
  public func read(_ entry: Entry, keepingLines: Bool = false) -> Result<Journal, JournalError> {
    read(file: entry.file, keepingLines: keepingLines)
  }

  /// The journal in `file`, or why it cannot be read.
  public func read(file: String, keepingLines: Bool = false) -> Result<Journal, JournalError> {
    switch FileContents.read(path: file, limit: Self.maximumSize, regularOnly: true) {
    case .success(let bytes): .success(Journal.read(bytes, keepingLines: keepingLines))
    case .failure(.system(let error)): .failure(JournalError("\(file): \(errorMessage(error))"))
    case .failure(.isDirectory), .failure(.notRegularFile): .failure(JournalError("\(file): not a regular file"))
    case .failure(.tooLarge): .failure(JournalError("\(file): larger than \(Self.maximumSize >> 20) MiB"))
    }
  }

  /// The names of the `.ndjson` files in the folder, in the order the folder lists them.
  private func journalFileNames() -> Result<[String], FileContents.Failure> {
    guard let directory = opendir(path) else { return errno == ENOENT ? .success([]) : .failure(.system(errno)) }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name.hasSuffix(".ndjson"), !name.hasPrefix(".") { names.append(name) }
    }
    return .success(names)
  }

  /// A new journal for run `id`, open for appending; or why not.
  func create(run id: String) -> Result<(descriptor: Int32, file: String), JournalError> {
    if case .failure(let error) = state.makeFolder(path) { return .failure(error) }
    let file = path + "/" + id + ".ndjson"
    let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      return .failure(JournalError("cannot create '\(file)': \(errorMessage(errno))"))
    }
    return .success((descriptor, file))
  }

  /// Removes this manifest's journals but the newest ``keptRuns``, counting `newJournal`, just
  /// created: it has no header yet, so ``entries()`` does not list it. An older journal that
  /// holds the newest record of one of the `tracked` jobs (those whose files decide whether
  /// they run) stays until a newer record of each of them is written elsewhere (SPEC §10).
  func prune(keeping newJournal: String, tracked: Set<String> = []) {
    let older = entries().entries.filter { $0.file != newJournal }
    guard older.count > Self.keptRuns - 1 else { return }
    let removable = older.count - (Self.keptRuns - 1)
    var unseen = tracked
    var needed = Set<String>()
    // Newest first, reading whole journals only while some tracked job has no record yet.
    for (index, entry) in older.enumerated().reversed() where !unseen.isEmpty {
      guard case .success(let journal) = read(entry) else { continue }
      for record in journal.records where record.started && unseen.contains(record.job) {
        unseen.remove(record.job)
        if index < removable { needed.insert(entry.file) }
      }
    }
    for entry in older.prefix(removable) where !needed.contains(entry.file) { unlink(entry.file) }
  }
}

/// Why a journal could not be read or written: a message for a warning.
public struct JournalError: Error, Sendable, CustomStringConvertible {
  public var message: String

  init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
