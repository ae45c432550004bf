import Glibc
import OprunCore

extension RunIndex {
  /// Adds run `id`, whose journal is `journal` (an absolute path), with one `write(2)` of a
  /// file opened with `O_APPEND`; then, when `pruning` (the run has just removed journals) or
  /// when the index has grown past another ``pruningStep``, drops the entries whose journal is
  /// gone. Nil when done, else why the run is not in the index. A journal whose path holds a
  /// newline cannot be a line of the index: it is left out, and found from its folder alone.
  func record(run id: String, journal: String, pruning: Bool) -> JournalError? {
    let entry = Entry(run: id, journal: journal)
    guard entry.isWritable else { return nil }
    let folderDescriptor: Int32
    switch openFolder(creating: true) {
    case .failure(let problem): return problem
    case .success(let descriptor): folderDescriptor = descriptor!
    }
    defer { close(folderDescriptor) }
    // Shared: runs append side by side; a pruning run waits for them, and they for it.
    let index: (descriptor: Int32, size: Int)
    switch openLocked(in: folderDescriptor, flags: O_WRONLY | O_APPEND | O_CREAT, lock: LOCK_SH) {
    case .failure(let problem): return problem
    case .success(let opened): index = opened
    }
    let line = Array((entry.run + "\t" + entry.journal + "\n").utf8)
    let failure = line.withUnsafeBytes { writeWhole(index.descriptor, $0) }
    close(index.descriptor)
    if failure != 0 { return JournalError("cannot write '\(file)': \(errorMessage(failure))") }
    if pruning || index.size / Self.pruningStep != (index.size + line.count) / Self.pruningStep {
      prune(in: folderDescriptor)
    }
    return nil
  }

  /// Drops the entries whose journal is gone, as ``record(run:journal:pruning:)`` does when
  /// `pruning`: for a run that removes journals once its first jobs have started, since it
  /// stats every entry. Nothing when the index or its folder is missing or not the user's.
  func dropEntriesOfGoneJournals() {
    guard case .success(let opened) = openFolder(creating: false), let folderDescriptor = opened else { return }
    defer { close(folderDescriptor) }
    prune(in: folderDescriptor)
  }

  /// Rewrites the index without the entries whose journal is gone (and lines that lead to no
  /// run's journal), when there are any: a new file, renamed over the index while no run appends.
  private func prune(in folderDescriptor: Int32) {
    guard case .success(let index) = openLocked(in: folderDescriptor, flags: O_RDONLY, lock: LOCK_EX) else { return }
    defer { close(index.descriptor) }
    guard case .success(let bytes) = FileContents.readRegular(descriptor: index.descriptor, limit: Self.maximumSize)
    else { return }
    var kept: [UInt8] = []
    var dropped = 0
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      guard let entry = Entry(line), entry.namesARunsJournal, entry.journalExists else {
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

  /// The index in the folder open as `folderDescriptor`, opened with `flags` and locked with
  /// `lock`, once it is this user's regular file and still the one the folder names (a pruning
  /// run may have renamed a new one over it meanwhile); with its size then.
  private func openLocked(in folderDescriptor: Int32, flags: Int32, lock: Int32) -> Result<
    (descriptor: Int32, size: Int), JournalError
  > {
    for _ in 0..<Self.attempts {
      let descriptor = openat(folderDescriptor, Self.fileName, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else { return .failure(JournalError(openProblem(errno))) }
      if let problem = problem(withIndex: descriptor) {
        close(descriptor)
        return .failure(JournalError(problem))
      }
      var opened = stat()
      var named = stat()
      while flock(descriptor, lock) != 0, errno == EINTR {}
      if fstat(descriptor, &opened) == 0, fstatat(folderDescriptor, Self.fileName, &named, AT_SYMLINK_NOFOLLOW) == 0,
        opened.st_dev == named.st_dev, opened.st_ino == named.st_ino
      {
        return .success((descriptor, Int(opened.st_size)))
      }
      close(descriptor)
    }
    return .failure(JournalError("'\(file)' was replaced \(Self.attempts) times while it was being opened"))
  }

  /// How many times the index is opened again when another run replaced it meanwhile.
  private static let attempts = 16
}
