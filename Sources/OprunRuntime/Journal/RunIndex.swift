import Glibc
import OprunCore

/// The index of this user's runs (SPEC §9): the file `journals` in `oprun/` of the user's
/// state folder (`$XDG_STATE_HOME` when it is an absolute path, else `~/.local/state`), with one
/// line per run that keeps a journal, `RUN-ID<TAB>/absolute/path/.oprun/runs/RUN-ID.ndjson`,
/// appended as the run starts; so that `oprun log RUN-ID` finds a run of any manifest, run
/// from any folder.
///
/// It only points at journals, which stay beside their manifests: an entry whose journal is
/// gone is dropped when a run grows the index past another ``pruningStep``
/// (``dropEntriesOfGoneJournals(isGone:)``), and the index
/// may be deleted at any time. Its folder is the user's own, as `.oprun/` is (``StateFolder/open()``):
/// made with mode 0700 and the file 0600, the file never reached through a link, and neither
/// used when another user owns it or everyone may write the folder.
public struct RunIndex: Sendable, Equatable {
  /// `oprun` in the user's state folder.
  public let folder: String

  /// The index itself.
  public var file: String { folder + "/" + Self.fileName }

  static let fileName = "journals"
  /// Each time the index grows past another multiple of this many bytes (some 500 runs), the
  /// run that grew it drops the entries whose journal is gone (pruned, or deleted with its
  /// folder): the index stays within this much of its live entries, and no other run rewrites
  /// it or looks at the journals it names.
  static let pruningStep = 64 << 10
  /// An index longer than this is not read.
  static let maximumSize = 64 << 20

  public init(folder: String) {
    self.folder = folder
  }

  /// This user's index, where the environment puts it; nil when no home folder is known.
  public static func ofThisUser() -> RunIndex? {
    folder(
      stateHome: ControlFolder.environment("XDG_STATE_HOME"), home: ControlFolder.environment("HOME") ?? homeOfUser()
    )
    .map(RunIndex.init(folder:))
  }

  /// `oprun` in `stateHome` when it is absolute (as the XDG base directory specification
  /// says: a relative one is ignored), else in `home`'s `.local/state`.
  static func folder(stateHome: String?, home: String?) -> String? {
    func trimmed(_ path: String) -> String { path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path }
    func inside(_ folder: String, _ name: String) -> String { folder == "/" ? "/" + name : folder + "/" + name }
    if let stateHome, stateHome.hasPrefix("/") { return inside(trimmed(stateHome), "oprun") }
    guard let home, home.hasPrefix("/") else { return nil }
    return inside(trimmed(home), ".local/state/oprun")
  }

  /// The home folder the user database gives this user, when `HOME` is not set.
  private static func homeOfUser() -> String? {
    var record = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16 << 10)
    return buffer.withUnsafeMutableBufferPointer { buffer -> String? in
      guard let start = buffer.baseAddress, getpwuid_r(geteuid(), &record, start, buffer.count, &found) == 0,
        found != nil, let home = record.pw_dir
      else { return nil }
      return String(cString: home)
    }
  }

  /// One line of the index.
  struct Entry: Equatable {
    var run: String
    /// The absolute path of its journal.
    var journal: String

    /// The entry `line` holds; nil for a line that is none (cut short, or not oprun's).
    init?(_ line: some Collection<UInt8>) {
      guard let tab = line.firstIndex(of: UInt8(ascii: "\t")) else { return nil }
      run = String(decoding: line[..<tab], as: UTF8.self)
      journal = String(decoding: line[line.index(after: tab)...], as: UTF8.self)
      guard !run.isEmpty, journal.hasPrefix("/") else { return nil }
    }

    init(run: String, journal: String) {
      self.run = run
      self.journal = journal
    }

    /// Whether it can be written as one line and read back as itself.
    var isWritable: Bool {
      !run.isEmpty && !run.contains("\t") && !run.contains("\n") && journal.hasPrefix("/") && !journal.contains("\n")
    }

    /// Whether its journal is a run's journal of that name in a `.oprun/runs/`, the only
    /// files the index may lead `oprun log` to.
    var namesARunsJournal: Bool {
      journal.hasSuffix("/\(StateFolder.name)/runs/" + JournalName(run: run).fileName)
    }

    /// Whether its journal may still be there (``journalExists(at:)``).
    var journalExists: Bool { Self.journalExists(at: journal) }

    /// Whether a journal may still be at `path`: only a path that is no longer there
    /// (`ENOENT`, `ENOTDIR`) is gone; one that cannot be looked at now is kept.
    static func journalExists(at path: String) -> Bool {
      var status = stat()
      return lstat(path, &status) == 0 || (errno != ENOENT && errno != ENOTDIR)
    }
  }

  /// What the index says of a RUN-ID.
  public enum Lookup: Equatable {
    /// Its journal, there now.
    case journal(String)
    /// Its journal as the index named it, no longer there (pruned, or removed with its `.oprun/`).
    case gone(String)
    /// The index names no such run.
    case unknown
  }

  /// Where run `id`'s journal is, by the newest entry naming it whose journal is there; or why
  /// the index could not be read. No index yet names no run.
  public func lookUp(run id: String) -> Result<Lookup, JournalError> {
    entries().map { entries in
      var gone: String?
      for entry in entries.reversed() where entry.run == id && entry.namesARunsJournal {
        if entry.journalExists { return .journal(entry.journal) }
        gone = gone ?? entry.journal
      }
      return gone.map(Lookup.gone) ?? .unknown
    }
  }

  /// The RUN-IDs the index names, for a suggestion; none when it cannot be read.
  public func runIDs() -> [String] {
    ((try? entries().get()) ?? []).map(\.run)
  }

  /// The entries of the index, oldest first; or why it could not be read.
  func entries() -> Result<[Entry], JournalError> {
    let opened: Int32?
    switch openFolder(creating: false) {
    case .failure(let problem): return .failure(problem)
    case .success(let descriptor): opened = descriptor
    }
    guard let folderDescriptor = opened else { return .success([]) }
    defer { close(folderDescriptor) }
    let descriptor = openat(folderDescriptor, Self.fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      return errno == ENOENT ? .success([]) : .failure(JournalError(openProblem(errno)))
    }
    defer { close(descriptor) }
    if let problem = problem(withIndex: descriptor) { return .failure(JournalError(problem)) }
    switch FileContents.readRegular(descriptor: descriptor, limit: Self.maximumSize) {
    case .success(let bytes):
      return .success(bytes.split(separator: UInt8(ascii: "\n")).compactMap(Entry.init))
    case .failure(let failure):
      return .failure(JournalError("cannot read '\(file)': \(failure.message)"))
    }
  }

  /// The folder open, when it is there (or made, `creating` it and the folders above it, with
  /// no access for others) and this user's, as ``StateFolder/open()`` decides for `.oprun/`: a
  /// link of this user's own is followed, and the folder it leads to checked; nil when it is
  /// not there and not to be made.
  func openFolder(creating: Bool) -> Result<Int32?, JournalError> {
    var link = stat()
    if lstat(folder, &link) != 0 {
      guard errno == ENOENT else { return .failure(JournalError("cannot look at '\(folder)': \(errorMessage(errno))")) }
      guard creating else { return .success(nil) }
      if let problem = makeFolders() { return .failure(problem) }
      guard lstat(folder, &link) == 0 else {
        return .failure(JournalError("cannot look at '\(folder)': \(errorMessage(errno))"))
      }
    }
    if link.st_uid != geteuid() {
      return .failure(JournalError("'\(folder)' belongs to another user (uid \(link.st_uid))"))
    }
    let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else {
      let reason = errno == ENOTDIR ? "not a folder" : errorMessage(errno)
      return .failure(JournalError("cannot use '\(folder)': \(reason)"))
    }
    var status = stat()
    let problem =
      fstat(descriptor, &status) == 0
      ? problem(withFolder: status) : "cannot look at '\(folder)': \(errorMessage(errno))"
    guard let problem else { return .success(descriptor) }
    close(descriptor)
    return .failure(JournalError(problem))
  }

  /// What makes the folder of `status` unfit: another user's, or writable by everyone.
  private func problem(withFolder status: stat) -> String? {
    if status.st_uid != geteuid() { return "'\(folder)' belongs to another user (uid \(status.st_uid))" }
    if status.st_mode & S_IWOTH != 0 {
      return "'\(folder)' may be written by everyone (mode \(String(status.st_mode & 0o7777, radix: 8)))"
    }
    return nil
  }

  /// Makes the folder and those above it that are missing, each with no access for others
  /// (as the XDG specification asks of the state folder); or why one could not be made.
  private func makeFolders() -> JournalError? {
    var path = ""
    for component in folder.split(separator: "/") {
      path += "/" + component
      if mkdir(path, 0o700) != 0, errno != EEXIST {
        return JournalError("cannot create '\(path)': \(errorMessage(errno))")
      }
    }
    return nil
  }

  /// What is wrong with the index open as `descriptor`: no regular file, or another user's.
  func problem(withIndex descriptor: Int32) -> String? {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return "cannot look at '\(file)': \(errorMessage(errno))" }
    if status.st_mode & S_IFMT != S_IFREG { return "'\(file)' is not a regular file" }
    if status.st_uid != geteuid() { return "'\(file)' belongs to another user (uid \(status.st_uid))" }
    return nil
  }

  /// Why the index could not be opened, from `openat`'s errno.
  func openProblem(_ error: Int32) -> String {
    error == ELOOP ? "'\(file)' is a symbolic link" : "cannot open '\(file)': \(errorMessage(error))"
  }
}
