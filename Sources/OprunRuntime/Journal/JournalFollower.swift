import Glibc
import OprunCore

/// The newest record of a job, asked for again and again while other runs append to their
/// journals (SPEC §10: a job whose lock another run held since this run read the records is
/// decided from what that run recorded). It answers as ``JournalFolder/newestRecords(of:)``
/// does for one job, but lists the journals again only when the folder has changed, and reads
/// each journal once and then only the lines appended since (once its size has grown), so
/// that two runs sharing thousands of jobs do not list or read each other's journals thousands
/// of times. This run's own journal is passed over: it holds no record of a job the run has
/// not finished.
final class JournalFollower {
  private let folder: JournalFolder
  private let ownJournal: String?
  /// What each journal read so far holds, by file.
  private var followed: [String: Followed] = [:]
  /// The journals as last listed.
  private var entries: [JournalFolder.Entry] = []
  /// The folder as it was when `entries` were listed, while they may be kept: nil when the
  /// folder is to be listed again at the next asking.
  /// A file added, removed or renamed changes the folder's modification time, and a folder
  /// put in its place its inode.
  private var listedFolder: FileStatus?
  /// How many times the folder was listed, and journals opened (tests).
  private(set) var listings = 0
  private(set) var opens = 0

  /// One journal, read up to `offset` (the end of its last whole line).
  private struct Followed {
    var offset = 0
    /// The file's inode and size when it was last read: it is read again once its size grew.
    var inode: UInt = 0
    var size = -1
    /// The newest record that stands of each job it records.
    var records: [String: JournalRecord] = [:]
    /// Jobs a line that could not be read names; every job, with `everyJobLost`.
    var lost: Set<String> = []
    var everyJobLost = false
    /// It cannot be read (too large, not a regular file, written by a newer oprun): passed over.
    var isPassedOver = false
    /// It is not this user's own file alone (another user's, or a hard link to a file that
    /// may be anyone's): nothing in it is trusted, nor is an older journal trusted over it.
    var isDistrusted = false
  }

  init(folder: JournalFolder, ownJournal: String?) {
    self.folder = folder
    self.ownJournal = ownJournal
  }

  /// The newest record that stands of the job named `name`, across the manifest's journals,
  /// newest first; nil when none has one, when a line that could not be read may have been
  /// it, when a journal cannot be opened now, or when a newer journal is not this user's own
  /// (the job then runs: a record is never taken from an older journal than the newest that
  /// may hold one). Journals are checked as ``StateFolder/open()`` checks `.oprun/` before the
  /// run: `runs/` may have been changed since by whoever may write it. ``RecordReading/notNow``
  /// when the folder or a journal cannot be opened for want of a descriptor.
  func newestRecord(of name: String) -> RecordReading {
    guard listJournals() else { return .notNow }
    for entry in entries.reversed() where entry.file != ownJournal {
      let journal: Followed
      switch readOn(entry.file) {
      case .read(let read): journal = read
      case .shortOfDescriptors: return .notNow
      case .unopenable: return .read(nil)
      }
      if journal.isDistrusted { return .read(nil) }
      if journal.isPassedOver { continue }
      if let record = journal.records[name] { return .read(record) }
      if journal.everyJobLost || journal.lost.contains(name) { return .read(nil) }
    }
    return .read(nil)
  }

  /// Lists the journals again, unless the folder is as it was when they were last listed;
  /// false when the folder or a journal cannot be opened now for want of a descriptor. The
  /// folder is looked at by its path, not through a descriptor kept open: one put in its
  /// place is a change. A listing is kept only when its folder was last changed a second or
  /// more before it began (a file added within the same tick of the file system's clock would
  /// leave the time as it was) and it was settled (a journal just created gets its header
  /// without changing the folder).
  private func listJournals() -> Bool {
    var status = stat()
    let folderStamp = stat(folder.path, &status) == 0 ? FileStatus(status) : nil
    if let folderStamp, folderStamp == listedFolder { return true }
    let began = time(nil)
    let scan = folder.entriesForFollowing()
    listings += 1
    listedFolder = nil
    if scan.isShortOfDescriptors { return false }
    entries = scan.entries
    if let folderStamp, scan.isSettled, folderStamp.modified.seconds < Int64(began) - 1 { listedFolder = folderStamp }
    return true
  }

  /// What reading a journal on came to.
  private enum Reading {
    case read(Followed)
    /// No descriptor is left to open it now (EMFILE, ENFILE): ask again later.
    case shortOfDescriptors
    /// It cannot be opened (an error other than its absence, a link, or no descriptor left).
    case unopenable
  }

  /// The journal in `file`, with the whole lines appended since it was last read.
  private func readOn(_ file: String) -> Reading {
    var journal = followed[file] ?? Followed()
    defer { followed[file] = journal }
    guard !journal.isPassedOver, !journal.isDistrusted else { return .read(journal) }
    var named = stat()
    if lstat(file, &named) == 0, UInt(named.st_ino) == journal.inode, Int(named.st_size) == journal.size,
      named.st_uid == geteuid(), named.st_nlink == 1
    {
      return .read(journal)  // nothing appended since it was read
    }
    opens += 1
    let descriptor = open(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else {
      let failure = errno
      if failure == EMFILE || failure == ENFILE { return .shortOfDescriptors }
      guard failure == ELOOP || failure == ENOENT else { return .unopenable }
      journal.isPassedOver = true
      return .read(journal)
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return .unopenable }
    guard status.st_uid == geteuid(), status.st_nlink == 1 else {
      journal.isDistrusted = true
      return .read(journal)
    }
    guard status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) <= JournalFolder.maximumSize else {
      journal.isPassedOver = true
      return .read(journal)
    }
    // Another file put in its place is read from its start.
    if journal.size >= 0, UInt(status.st_ino) != journal.inode { journal = Followed() }
    let size = Int(status.st_size)
    journal.inode = UInt(status.st_ino)
    journal.size = size
    guard size > journal.offset else { return .read(journal) }
    var bytes = [UInt8](repeating: 0, count: size - journal.offset)
    let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(journal.offset)) }
    if count != bytes.count { journal.size = -1 }  // read short: opened again next time
    guard count > 0 else { return .read(journal) }
    // Only whole lines: the rest is read once its writer has ended it.
    guard let lastNewline = bytes[..<count].lastIndex(of: UInt8(ascii: "\n")) else { return .read(journal) }
    let lines = Journal.read(Array(bytes[...lastNewline]))
    journal.offset += lastNewline + 1
    if lines.isFromNewerFormat {
      journal.isPassedOver = true
      return .read(journal)
    }
    for record in lines.records where record.started {
      journal.records[record.job] = record
      journal.lost.remove(record.job)
    }
    for job in lines.jobsOfUnreadableLines where journal.records[job] == nil { journal.lost.insert(job) }
    if lines.hasUnreadableLineOfUnknownJob { journal.everyJobLost = true }
    return .read(journal)
  }
}
