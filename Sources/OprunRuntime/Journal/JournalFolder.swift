import COprunSystem
import Glibc
import OprunCore

/// Where a manifest's journals live: `.oprun/runs/` in the manifest's folder, one
/// `RUN-ID.ndjson` per run (SPEC §9). Several manifests may share a folder; a journal
/// belongs to the manifest its header names (by file name, so that a clone in another
/// folder, with `.oprun/` restored from a cache, still finds its runs). Its extended
/// attribute ``ownerAttribute`` says the same from its creation, so that a run of one
/// manifest passes over the others' journals without opening them.
public struct JournalFolder: Sendable {
  /// The `.oprun/` it is in.
  public let state: StateFolder
  /// `.oprun/runs` beside the manifest.
  public var path: String { state.runs }
  /// The manifest's file name, that of the file a link to it leads to: the name the
  /// headers of its journals carry.
  public let manifestName: String

  /// Journals are kept for this many runs of a manifest; older ones are removed.
  public static let keptRuns = 20
  /// A journal longer than this is not read (a 100,000-job run writes about 25 MB).
  static let maximumSize = 1 << 30

  public init(manifestPath: String) {
    state = StateFolder(manifestPath: manifestPath)
    manifestName = PathParts.fileName(of: AbsolutePath.of(manifestPath))
  }

  /// One journal of this manifest.
  public struct Entry: Sendable {
    public var file: String
    /// Its file name: which run it was, and where it stands among the others.
    public var name: JournalName
    /// Its first line; nil when that could not be read as a header. The name still says
    /// which run it was, and the records still count, whichever manifest reads them: a
    /// damaged header must not let an older record stand for a newer one (SPEC §9).
    public var header: JournalHeader?
  }

  /// This manifest's journals, oldest first (by sequence number, SPEC §9), and the warnings
  /// about what could not be read: the folder itself (no folder at all is no warning: no run
  /// yet), a file that cannot be opened, a journal whose header is damaged, and, in one
  /// warning, the files older than ``staleAge`` that are no journal (no header line).
  public func entries() -> (entries: [Entry], warnings: [String]) {
    let scan = scan()
    return (scan.entries, scan.warnings)
  }

  /// This manifest's journals, as ``entries()`` finds them, for reading again mid-run;
  /// whether the folder or one of them could not be opened for want of a descriptor, so that
  /// the list may lack the newest journal; and whether the list is settled: every file was
  /// read, and each is a journal with its header or left long ago, so that only a change of
  /// the folder itself (a file added, removed or renamed) can change it.
  func entriesForFollowing() -> (entries: [Entry], isShortOfDescriptors: Bool, isSettled: Bool) {
    let scan = scan()
    return (scan.entries, scan.isShortOfDescriptors, scan.isSettled)
  }

  /// What ``entries()`` gives, the files that are no journal and older than ``staleAge``,
  /// whether a file could not be opened for want of a descriptor, and whether the list is
  /// settled (``entriesForFollowing()``). Without `readingOwnHeaders`, a journal whose
  /// attribute says it is this manifest's is listed without its header (what pruning needs):
  /// the header of every journal kept is not read at every run.
  private func scan(readingOwnHeaders: Bool = true) -> (
    entries: [Entry], warnings: [String], stale: [String], isShortOfDescriptors: Bool, isSettled: Bool
  ) {
    var entries: [Entry] = []
    var warnings: [String] = []
    var stale: [String] = []
    var isShortOfDescriptors = false
    var isSettled = true
    func noteShortage(_ failure: FileContents.Failure) {
      if case .system(let code) = failure, code == EMFILE || code == ENFILE { isShortOfDescriptors = true }
    }
    let names: [JournalName]
    switch journalFileNames() {
    case .success(let found): names = found
    case .failure(let failure):
      noteShortage(failure)
      return ([], ["cannot read the journals in \(path): \(failure.message)"], [], isShortOfDescriptors, false)
    }
    for name in names {
      let file = path + "/" + name.fileName
      // As the run that made it said: another manifest's is passed over without being opened
      // (a folder of many manifests has many journals, and each run looks at them all).
      if let owner = Self.owner(of: file) {
        if owner != manifestName { continue }
        if !readingOwnHeaders, name.sequence != nil {
          entries.append(Entry(file: file, name: name, header: nil))
          continue
        }
      }
      switch Self.firstLine(of: file) {
      case .success(.header(let header)):
        if PathParts.fileName(of: header.manifest) == manifestName {
          entries.append(Entry(file: file, name: name, header: header))
        }
      case .success(.damaged) where name.sequence != nil:
        entries.append(Entry(file: file, name: name, header: nil))
        warnings.append("\(file): its header line cannot be read; its records are read as those of run \(name.run)")
      case .success(.damaged), .success(.none):
        // A run that has just created its journal has not written its header yet, and one
        // still submitting to Slurm holds it locked.
        if Self.isStale(file), !Self.isInProgress(file) { stale.append(file) } else { isSettled = false }
      case .failure(.system(ENOENT)):
        continue  // removed since the folder was listed: another run pruned it
      case .failure(let failure):
        noteShortage(failure)
        isSettled = false
        warnings.append("cannot read the journal \(file): \(failure.message); ignored")
      }
    }
    if let first = stale.min() {
      let others = stale.count > 1 ? " and \(counted(stale.count - 1, "other file"))" : ""
      warnings.append("\(first)\(others): not a journal (no header line); ignored")
    }
    entries.sort { $0.name.precedes($1.name, start: $0.header?.start ?? 0, otherStart: $1.header?.start ?? 0) }
    return (entries, warnings, stale, isShortOfDescriptors, isSettled)
  }

  /// The extended attribute a journal carries from its creation: the file name of the
  /// manifest it belongs to, as its header says it.
  static let ownerAttribute = "user.oprun.manifest"

  /// The manifest the journal `file` belongs to, as its attribute says; nil when it has none
  /// (made by an earlier oprun, copied without its attributes, or on a file system without
  /// them): its header then says.
  static func owner(of file: String) -> String? {
    var name = [UInt8](repeating: 0, count: 256)
    let count = name.withUnsafeMutableBytes { oprun_get_attribute(file, ownerAttribute, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    return String(decoding: name[..<count], as: UTF8.self)
  }

  /// How old a file that is no journal must be to be warned about and removed: a run writes
  /// its header as soon as it has created its journal.
  static let staleAge = 60

  /// Whether `file` was last written more than ``staleAge`` seconds ago.
  private static func isStale(_ file: String) -> Bool {
    var status = stat()
    guard lstat(file, &status) == 0 else { return false }
    return Int(time(nil)) - Int(status.st_mtim.tv_sec) > staleAge
  }

  /// What a journal's first line is.
  enum FirstLine {
    case header(JournalHeader)
    /// A whole line that is no header.
    case damaged
    /// No whole line: an empty file, one cut short, or no regular file.
    case none
  }

  /// The header of the journal `file`, read from its first line alone; nil when it has none
  /// (or is no regular file); the errno when it cannot be opened or read.
  static func header(of file: String) -> Result<JournalHeader?, FileContents.Failure> {
    firstLine(of: file).map { line in
      if case .header(let header) = line { header } else { nil }
    }
  }

  /// The first line of the journal `file`, read alone; the errno when it cannot be opened or read.
  private static func firstLine(of file: String) -> Result<FirstLine, FileContents.Failure> {
    // A header is a few hundred bytes, unless a run was given very many targets.
    for count in [4 << 10, 1 << 20, 64 << 20] {
      let prefix: [UInt8]
      switch FileContents.readPrefix(path: file, count: count) {
      case .success(let bytes): prefix = bytes
      case .failure(.system(let error)): return .failure(.system(error))
      case .failure: return .success(.none)
      }
      guard let newline = prefix.firstIndex(of: UInt8(ascii: "\n")) else {
        if prefix.count < count { return .success(.none) }
        continue
      }
      return .success(Journal.read(Array(prefix[...newline])).header.map(FirstLine.header) ?? .damaged)
    }
    return .success(.damaged)
  }

  /// The RUN-IDs of every journal in the folder, whichever manifest it belongs to, as their
  /// file names say them, sorted.
  public func runIDs() -> [String] {
    ((try? journalFileNames().get()) ?? []).map(\.run).sorted()
  }

  /// Where run `id`'s journal is, whether or not it exists.
  public func file(ofRun id: String) -> String {
    path + "/" + JournalName(run: id).fileName
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
    Self.read(file: entry.file, keepingLines: keepingLines)
  }

  /// The journal in `file`, or why it cannot be read.
  public static func read(file: String, keepingLines: Bool = false) -> Result<Journal, JournalError> {
    switch FileContents.read(path: file, limit: Self.maximumSize, regularOnly: true) {
    case .success(let bytes): .success(Journal.read(bytes, keepingLines: keepingLines))
    case .failure(.system(let error)): .failure(JournalError("\(file): \(errorMessage(error))"))
    case .failure(.isDirectory), .failure(.notRegularFile): .failure(JournalError("\(file): not a regular file"))
    case .failure(.tooLarge): .failure(JournalError("\(file): larger than \(Self.maximumSize >> 20) MiB"))
    }
  }

  /// The names of the journals in the folder, in the order the folder lists them.
  private func journalFileNames() -> Result<[JournalName], FileContents.Failure> {
    guard let directory = opendir(path) else { return errno == ENOENT ? .success([]) : .failure(.system(errno)) }
    defer { closedir(directory) }
    var names: [JournalName] = []
    while let entry = readdir(directory) {
      let name = entry.name
      if let journal = JournalName(fileName: name) { names.append(journal) }
    }
    return .success(names)
  }

  /// A new run's journal, open for appending.
  struct NewJournal {
    var descriptor: Int32
    var file: String
    /// The RUN-ID, which ends in the run's sequence number.
    var run: String
  }

  /// Creates the journal of a new run, numbered one more than the highest journal in the
  /// folder, whose RUN-ID `runID` makes from that number; or why not. It is created with
  /// `O_EXCL` and never through a link, and stays locked while its descriptor is open:
  /// ``prune(keeping:tracked:)`` does not remove the journal of a run in progress.
  func create(runID: (Int) -> String) -> Result<NewJournal, JournalError> {
    if case .failure(let error) = state.makeFolder(path) { return .failure(error) }
    // Two runs started at once take their numbers one after the other. Where the file system
    // cannot lock a folder, O_EXCL still keeps their RUN-IDs, if not their numbers, apart.
    let folder = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    if folder >= 0 { flock(folder, LOCK_EX) }
    defer { if folder >= 0 { close(folder) } }
    var sequence = JournalName.nextSequence(after: (try? journalFileNames().get()) ?? [])
    while true {
      let run = runID(sequence)
      let file = path + "/" + JournalName(run: run).fileName
      let descriptor = Glibc.open(file, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if descriptor >= 0 {
        flock(descriptor, LOCK_EX | LOCK_NB)
        // Where the file system keeps no such attribute, the header alone says whose it is.
        _ = manifestName.withCString { oprun_set_attribute(descriptor, Self.ownerAttribute, $0, strlen($0)) }
        return .success(NewJournal(descriptor: descriptor, file: file, run: run))
      }
      guard errno == EEXIST, sequence < Int(Int32.max) else {
        return .failure(JournalError("cannot create '\(file)': \(errorMessage(errno))"))
      }
      sequence += 1
    }
  }

  /// Removes this manifest's journals but the newest ``keptRuns``, counting `newJournal`, just
  /// created: it has no header yet, so ``entries()`` does not list it. An older journal that
  /// holds the newest record of one of the `tracked` jobs (those whose files decide whether
  /// they run) stays until a newer record of each of them is written elsewhere (SPEC §10), and
  /// so does the journal of a run still in progress (it holds a lock on it). Files that are no
  /// journal (an empty one left by a run killed as it began), and the temporary files of
  /// runs killed while writing, go once older than ``staleAge``. Whether it removed a journal.
  @discardableResult
  func prune(keeping newJournal: String, tracked: Set<String> = []) -> Bool {
    let scan = scan(readingOwnHeaders: false)
    var removed = false
    for file in scan.stale where file != newJournal { removed = Self.removeUnlessInProgress(file) || removed }
    state.removeLeftTemporaries(olderThan: Self.staleAge)
    let older = scan.entries.filter { $0.file != newJournal }
    guard older.count > Self.keptRuns - 1 else { return removed }
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
    for entry in older.prefix(removable) where !needed.contains(entry.file) {
      removed = Self.removeUnlessInProgress(entry.file) || removed
    }
    return removed
  }

  /// Unlinks the journal `file` unless the run that writes it still holds its lock; whether it did.
  @discardableResult
  private static func removeUnlessInProgress(_ file: String) -> Bool {
    let descriptor = Glibc.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      // A link where a journal should be: no run holds it.
      return errno == ELOOP && unlink(file) == 0
    }
    defer { close(descriptor) }
    // Unlinked while holding the probe's lock: the run cannot have taken it meanwhile.
    guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return false }
    return unlink(file) == 0
  }

  /// Whether a run still holds the lock of the journal `file`.
  private static func isInProgress(_ file: String) -> Bool {
    let descriptor = Glibc.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
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
