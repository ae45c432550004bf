import Glibc
import OprunCore

extension RunIndex {
  /// Adds run `id`, whose journal is `journal` (an absolute path), with one `write(2)` of a
  /// file opened with `O_APPEND`. True when the index has grown past another ``pruningStep``:
  /// its entries of gone journals are then due to be dropped (``dropEntriesOfGoneJournals()``,
  /// which may block, so not here). Else why the run is not in the index. A journal whose
  /// path holds a newline cannot be a line of the index: it is left out, and found from its
  /// folder alone.
  func record(run id: String, journal: String) -> Result<Bool, JournalError> {
    let entry = Entry(run: id, journal: journal)
    guard entry.isWritable else { return .success(false) }
    let folderDescriptor: Int32
    switch openFolder(creating: true) {
    case .failure(let problem): return .failure(problem)
    case .success(let descriptor): folderDescriptor = descriptor!
    }
    defer { close(folderDescriptor) }
    // Shared: runs append side by side. A pruning run holds it exclusively only to read the
    // index again and rename a new one over it: a few short tries outlast that, and a run
    // never waits longer than that to start.
    var opening = LockedOpening.busy
    for attempt in 0..<Self.recordingTries {
      if attempt > 0 { Self.pause(milliseconds: 10) }
      opening = openLocked(in: folderDescriptor, flags: O_WRONLY | O_APPEND | O_CREAT, lock: LOCK_SH)
      guard case .busy = opening else { break }
    }
    let index: (descriptor: Int32, size: Int)
    switch opening {
    case .opened(let descriptor, let size): index = (descriptor, size)
    case .busy: return .failure(JournalError("'\(file)' is locked by another oprun that is rewriting it"))
    case .failed(let problem): return .failure(problem)
    }
    let line = Array((entry.run + "\t" + entry.journal + "\n").utf8)
    let failure = line.withUnsafeBytes { writeWhole(index.descriptor, $0) }
    close(index.descriptor)
    if failure != 0 { return .failure(JournalError("cannot write '\(file)': \(errorMessage(failure))")) }
    return .success(index.size / Self.pruningStep != (index.size + line.count) / Self.pruningStep)
  }

  /// Drops the entries whose journal is gone (and lines that lead to no run's journal), when
  /// there are any: for a run that grew the index past another ``pruningStep``. It looks at every entry's journal, in any folder the user ever ran in,
  /// which may block for as long as a hung network mount does: so it holds no lock of the
  /// index meanwhile, and is not called on the run's loop. It reads the index under a shared
  /// lock, looks at the journals with none held, then takes the index exclusively without
  /// waiting (another run that holds it is left to; nothing is dropped this time), reads it
  /// again and rewrites it without the entries found gone, keeping those added meanwhile.
  /// Nothing when the index or its folder is missing or not the user's. `isGone` tells of a
  /// journal's path (tests stand in for the file system with it).
  func dropEntriesOfGoneJournals(isGone: (String) -> Bool = { !Entry.journalExists(at: $0) }) {
    guard case .success(let opened) = openFolder(creating: false), let folderDescriptor = opened else { return }
    defer { close(folderDescriptor) }
    guard let before = readLocked(in: folderDescriptor, lock: LOCK_SH) else { return }
    close(before.descriptor)
    var gone = Set<String>()
    var looked = Set<String>()
    for line in before.bytes.split(separator: UInt8(ascii: "\n")) {
      guard let entry = Entry(line), entry.namesARunsJournal, looked.insert(entry.journal).inserted else { continue }
      if isGone(entry.journal) { gone.insert(entry.journal) }
    }
    guard let index = readLocked(in: folderDescriptor, lock: LOCK_EX) else { return }
    defer { close(index.descriptor) }
    var kept: [UInt8] = []
    var dropped = 0
    for line in index.bytes.split(separator: UInt8(ascii: "\n")) {
      guard let entry = Entry(line), entry.namesARunsJournal, !gone.contains(entry.journal) else {
        dropped += 1
        continue
      }
      kept += line
      kept.append(UInt8(ascii: "\n"))
    }
    guard dropped > 0 else { return }
    let state = StateFolder(path: folder)
    state.removeLeftTemporaries(olderThan: JournalFolder.staleAge)
    guard let temporary = state.createTemporaryFile(in: folder, prefix: "." + Self.fileName + "-") else { return }
    let failure = kept.withUnsafeBytes { writeWhole(temporary.descriptor, $0) }
    close(temporary.descriptor)
    let temporaryName = PathParts.fileName(of: temporary.path)
    if failure != 0 || renameat(folderDescriptor, temporaryName, folderDescriptor, Self.fileName) != 0 {
      unlinkat(folderDescriptor, temporaryName, 0)
    }
  }

  /// The index, open and locked with `lock` without waiting, and what it holds; nil when it
  /// cannot be had now (locked by another run, missing, unfit or unreadable).
  private func readLocked(in folderDescriptor: Int32, lock: Int32) -> (descriptor: Int32, bytes: [UInt8])? {
    guard case .opened(let descriptor, _) = openLocked(in: folderDescriptor, flags: O_RDONLY, lock: lock) else {
      return nil
    }
    guard case .success(let bytes) = FileContents.readRegular(descriptor: descriptor, limit: Self.maximumSize) else {
      close(descriptor)
      return nil
    }
    return (descriptor, bytes)
  }

  /// What opening the index locked came to.
  private enum LockedOpening {
    /// Open as `descriptor` and locked; its size then.
    case opened(descriptor: Int32, size: Int)
    /// Another run holds a lock that excludes this one.
    case busy
    /// It cannot be opened or locked (ENOLCK on a network home, among others): why.
    case failed(JournalError)
  }

  /// The index in the folder open as `folderDescriptor`, opened with `flags` and locked with
  /// `lock` without waiting, once it is this user's regular file and still the one the folder
  /// names (a pruning run may have renamed a new one over it meanwhile); with its size then.
  private func openLocked(in folderDescriptor: Int32, flags: Int32, lock: Int32) -> LockedOpening {
    for _ in 0..<Self.attempts {
      let descriptor = openat(folderDescriptor, Self.fileName, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else { return .failed(JournalError(openProblem(errno))) }
      if let problem = problem(withIndex: descriptor) {
        close(descriptor)
        return .failed(JournalError(problem))
      }
      var failure: Int32 = 0
      while flock(descriptor, lock | LOCK_NB) != 0 {
        failure = errno
        if failure != EINTR { break }
        failure = 0
      }
      if failure != 0 {
        close(descriptor)
        if failure == EWOULDBLOCK { return .busy }
        return .failed(JournalError("cannot lock '\(file)': \(errorMessage(failure))"))
      }
      var opened = stat()
      var named = stat()
      if fstat(descriptor, &opened) == 0, fstatat(folderDescriptor, Self.fileName, &named, AT_SYMLINK_NOFOLLOW) == 0,
        opened.st_dev == named.st_dev, opened.st_ino == named.st_ino
      {
        return .opened(descriptor: descriptor, size: Int(opened.st_size))
      }
      close(descriptor)
    }
    return .failed(JournalError("'\(file)' was replaced \(Self.attempts) times while it was being opened"))
  }

  /// Waits `milliseconds`, through signals.
  private static func pause(milliseconds: Int) {
    var left = timespec(tv_sec: 0, tv_nsec: milliseconds * 1_000_000)
    var remaining = timespec()
    while nanosleep(&left, &remaining) != 0, errno == EINTR { left = remaining }
  }

  /// How many times the index is opened again when another run replaced it meanwhile.
  private static let attempts = 16
  /// How many times a run tries to lock the index to add itself while a pruning run holds it.
  private static let recordingTries = 5
}
