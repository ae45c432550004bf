import Glibc
import OprunCore

/// The files a list of patterns matches, found by walking each folder they start from once.
///
/// Patterns starting from the same folder share one walk, and a walk passing through the
/// folder another pattern starts from takes that pattern along from there. Only patterns
/// that add files lead walks: one that removes files is matched where they go. Walks do not
/// follow links; the folder a walk starts from is named directly and is followed.
///
/// The folders of a walk are listed and their files looked at by the calling thread and the
/// hashing pool's others at once: on a large tree the `stat` calls are most of the cost.
final class FileSetWalk: @unchecked Sendable {
  /// A file some pattern matched.
  struct Found: Sendable {
    var status: FileStatus
    /// Reached through a link named directly: its content is the target's.
    var followsLink: Bool
    var patterns: PatternSet
  }

  /// A pattern and where a walk stands in it.
  typealias Step = (pattern: Int, progress: WalkPattern.Progress)

  private let patterns: [WalkPattern]
  /// Recorded paths are relative to it when under it.
  private let manifestFolder: String
  /// The manifest's `.oprun/`, never matched.
  private let privateFolder: String
  /// Its folder and name, for telling it apart in a listing without building paths.
  private let privateFolderParts: (parent: String, name: String)
  /// Threads that walk beside the caller; nil walks on the caller's alone.
  private let pool: HashingPool?
  /// Under `--watch`: files' statuses the watcher vouches for, and where this walk's go.
  private let looks: WatchedLooks?

  private let lock = ConditionLock()
  // Guarded by `lock`.
  /// Per start, each in the byte order of recorded paths. A file also named by a pattern
  /// that starts from another folder is there once per start.
  private var found: [[FileSelection.File]] = []
  /// What each folder listed holds, each in the byte order of its paths, by folder.
  private var listed: [String: Listed] = [:]
  /// Pattern indices, by the folder (absolute, not yet walked) they start from.
  private var waiting: [String: [Int]] = [:]
  /// Folders still to list, with the patterns in progress there.
  private var folders: [(folder: String, steps: [Step])] = []
  /// Folders being listed now.
  private var listing = 0
  /// How many files `listed` holds.
  private var listedCount = 0
  /// Whether the pool's threads were asked to help.
  private var helping = false

  /// Walks for `patterns`, recording paths relative to `manifestFolder`; its `.oprun/` and
  /// what is under it are never matched.
  init(patterns: [WalkPattern], manifestFolder: String, pool: HashingPool? = .shared, looks: WatchedLooks? = nil) {
    self.patterns = patterns
    self.manifestFolder = manifestFolder
    let privateFolder = StateFolder(manifestFolder: manifestFolder).path
    self.privateFolder = privateFolder
    privateFolderParts = (PathParts.folder(of: privateFolder), PathParts.fileName(of: privateFolder))
    self.pool = pool
    self.looks = looks
  }

  /// What listing a folder found, in the byte order of paths: the files matched, and the
  /// folders below walked, each with how many of those files come before its own.
  private struct Listed {
    var files: [FileSelection.File] = []
    var folders: [(filesBefore: Int, path: String)] = []
  }

  /// Every file the patterns match: per start (a folder walked, a file named), in the byte
  /// order of recorded paths.
  func run() -> [[FileSelection.File]] {
    lock.withLock {
      for (index, pattern) in patterns.enumerated() { waiting[pattern.base, default: []].append(index) }
    }
    // Outermost first, so that a folder inside another is reached by the outer walk.
    for base in lock.withLock({ waiting.keys }).sorted(by: { $0.utf8.count < $1.utf8.count }) {
      guard let indices = lock.withLock({ waiting[base] }), leadsWalk(indices) || !isFolder(base) else { continue }
      lock.withLock { _ = waiting.removeValue(forKey: base) }
      start(at: base, indices)
    }
    // Handed over, not shared: the caller filters them in place, which would copy them all
    // while the walk still held them.
    return lock.withLock {
      defer { found = [] }
      return found
    }
  }

  /// The patterns `indices`, which start from `base`, matched from there: the base named
  /// directly, so followed when it is a link. One too long to be looked at (past PATH_MAX)
  /// is recorded as a file that cannot be read, not as missing.
  private func start(at base: String, _ indices: [Int]) {
    guard !LexicalPath.isWithin(base, privateFolder),
      let status = FileStatus.of(base, followingLink: true) ?? (errno == ENAMETOOLONG ? .unknown : nil)
    else { return }
    if status.isFolder {
      lock.withLock { folders.append((base, indices.map { ($0, patterns[$0].progressAtBase) })) }
      listFolders()
      lock.withLock {
        // Not for none: see ``Array/init(initializingInPlace:_:)``.
        let files =
          listedCount == 0
          ? []
          : [FileSelection.File](unsafeUninitializedCapacity: listedCount) { files, count in
            if let start = files.baseAddress { collect(base, into: start, count: &count) }
          }
        found.append(files)
        listed = [:]
        listedCount = 0
      }
      return
    }
    var matched = PatternSet()
    for index in indices where patterns[index].rest.isEmpty && !patterns[index].namesFolder { matched.insert(index) }
    guard !matched.isEmpty else { return }
    let followsLink = FileStatus.of(base, followingLink: false)?.isLink ?? false
    let file = FileSelection.File(
      path: base, recordedPath: recordedPath(of: base),
      found: Found(status: status, followsLink: followsLink, patterns: matched))
    lock.withLock { found.append([file]) }
  }

  /// Lists folders until none is left to list and none is being listed, by any thread.
  private func listFolders() {
    lock.withLock {
      while true {
        if let (folder, steps) = folders.popLast() {
          listing += 1
          let (found, inside) = lock.unlocked { list(folder, steps) }
          listing -= 1
          listed[folder] = found
          listedCount += found.files.count
          folders += inside
          if !folders.isEmpty { askForHelp() }
          if !inside.isEmpty || (folders.isEmpty && listing == 0) { lock.broadcast() }
        } else if listing == 0 {
          return
        } else {
          lock.wait()
        }
      }
    }
  }

  /// Moves the files listed in `folder` and below it, in order, to `files` from `count` on;
  /// called holding the lock. Moved, not copied: copying 10,000 files and then freeing the
  /// folders' own retained and released every string twice, on the walk's one serial step.
  private func collect(_ folder: String, into files: UnsafeMutablePointer<FileSelection.File>, count: inout Int) {
    guard var listing = listed.removeValue(forKey: folder) else { return }
    let folders = listing.folders
    listing.files.withUnsafeMutableBufferPointer { source in
      var start = 0
      func move(upTo end: Int) {
        (files + count).moveInitialize(from: source.baseAddress! + start, count: end - start)
        count += end - start
        start = end
      }
      for (filesBefore, path) in folders {
        move(upTo: filesBefore)
        collect(path, into: files, count: &count)
      }
      move(upTo: source.count)
      // Its array still owns the slots the files left and destroys them: each gets an empty
      // file, which holds nothing to release.
      if let slots = source.baseAddress { slots.initialize(repeating: .moved, count: source.count) }
    }
  }

  /// Has the pool's other threads list folders too, once there are more than one to list;
  /// called holding the lock. One that comes after the walk ended finds nothing to do.
  private func askForHelp() {
    guard !helping, let pool else { return }
    helping = true
    for _ in 1..<max(pool.threadCount, 2) { pool.submit { _ in self.listFolders() } }
  }

  /// Matches the entries of `folder` against the patterns in progress there: the files
  /// matched and the folders below to walk, in the byte order of their paths, and those
  /// folders with the patterns in progress in each.
  private func list(_ folder: String, _ steps: [Step]) -> (
    found: Listed, inside: [(folder: String, steps: [Step])]
  ) {
    guard let listing = FolderEntries(folder) else {
      return (unlistable(folder, steps), [])
    }
    var found = Listed()
    var inside: [(folder: String, steps: [Step])] = []
    let holdsPrivateFolder = folder == privateFolderParts.parent
    // Its files' recorded paths go on from it: worked out once, not for each file.
    let recordedFolder = LexicalPath.relative(folder, to: manifestFolder)
    var lender = looks?.lender(for: folder)
    var looked: WatchedLooks.FolderLook = []
    defer { looks?.record(looked, in: folder) }
    for (entry, knownStatus) in listing.sortedAsPaths() {
      if holdsPrivateFolder && entry.name == privateFolderParts.name { continue }
      var lazyStatus = knownStatus
      func status() -> FileStatus? {
        if lazyStatus == nil { lazyStatus = listing.status(of: entry.name) }
        return lazyStatus
      }
      let isFolder = entry.type == DT_DIR || (entry.type == DT_UNKNOWN && status()?.isFolder == true)
      var stepsInside: [Step] = []
      var matched = PatternSet()
      for (index, current) in steps {
        let step = patterns[index].step(current, name: entry.name, isFolder: isFolder)
        if step.matched && !isFolder { matched.insert(index) }
        if isFolder && step.inside.isLive { stepsInside.append((index, step.inside)) }
      }
      let path = folder == "/" ? "/" + entry.name : folder + "/" + entry.name
      if isFolder {
        let walksInside = lock.withLock {
          if let starting = waiting.removeValue(forKey: path) {
            stepsInside += starting.map { ($0, patterns[$0].progressAtBase) }
          }
          return leadsWalk(stepsInside.map(\.pattern)) || waitsBelow(path)
        }
        if walksInside {
          inside.append((path, stepsInside))
          found.folders.append((found.files.count, path))
        }
      } else if !matched.isEmpty,
        let status = lender?.status(of: entry.name) ?? status() ?? (errno == ENOENT ? nil : .unknown)
      {
        // A file of several names may be written through one in a folder no one watches,
        // which the kernel names to no watcher here: it is looked at every time.
        if looks != nil, status.type != 0, status.links == 1 { looked.append((entry.name, status)) }
        // One that cannot be looked at (a folder that can be listed but not searched) is
        // recorded as a file that cannot be read; one gone since the listing is no file.
        let matches = Found(status: status, followsLink: false, patterns: matched)
        let recorded = recordedFolder.map { $0 == "." ? entry.name : $0 + "/" + entry.name } ?? path
        found.files.append(FileSelection.File(path: path, recordedPath: recorded, found: matches))
      }
    }
    return (found, inside)
  }

  /// A folder that cannot be listed, recorded as unreadable for the patterns that may match
  /// something in it, so that it counts as changed until it can be read: one that cannot
  /// even be looked at (its path is longer than PATH_MAX) too.
  private func unlistable(_ folder: String, _ steps: [Step]) -> Listed {
    var whole = PatternSet()
    for (index, progress) in steps where progress.isLive { whole.insert(index) }
    guard !whole.isEmpty else { return Listed() }
    // One that is gone is no file: an output folder not made yet is missing, not unreadable.
    guard var status = FileStatus.of(folder, followingLink: true) ?? (errno == ENAMETOOLONG ? .unknown : nil) else {
      return Listed()
    }
    status.type = 0
    let found = Found(status: status, followsLink: false, patterns: whole)
    return Listed(files: [FileSelection.File(path: folder, recordedPath: recordedPath(of: folder), found: found)])
  }

  /// Whether some pattern that leads walks and has not started yet starts below `folder`;
  /// called holding the lock.
  private func waitsBelow(_ folder: String) -> Bool {
    waiting.contains { base, indices in leadsWalk(indices) && LexicalPath.isWithin(base, folder) }
  }

  private func leadsWalk(_ indices: [Int]) -> Bool { indices.contains { patterns[$0].leadsWalk } }

  /// What a record shows of `path`: relative to the manifest's folder when under it.
  private func recordedPath(of path: String) -> String {
    LexicalPath.relative(path, to: manifestFolder).flatMap { $0 == "." ? nil : $0 } ?? path
  }

  private func isFolder(_ path: String) -> Bool { FileStatus.of(path, followingLink: true)?.isFolder == true }
}

/// Indices of patterns, each once: a bit each for the first 64, which is every manifest's
/// case, so that a file matched costs no allocation.
struct PatternSet: Sendable {
  private var bits: UInt64 = 0
  /// Nil rather than empty: a set is copied with every file found, and nil holds no array
  /// to retain and release.
  private var beyond: [Int]?

  var isEmpty: Bool { bits == 0 && beyond == nil }

  mutating func insert(_ index: Int) {
    if index < 64 {
      bits |= 1 << UInt64(index)
    } else if !(beyond?.contains(index) ?? false) {
      beyond = (beyond ?? []) + [index]
    }
  }

  mutating func formUnion(_ other: PatternSet) {
    bits |= other.bits
    for index in other.beyond ?? [] { insert(index) }
  }

  /// Every index, smallest first.
  func forEach(_ body: (Int) -> Void) {
    var rest = bits
    while rest != 0 {
      body(rest.trailingZeroBitCount)
      rest &= rest - 1
    }
    beyond?.sorted().forEach(body)
  }

  // The three below are asked of every file a request finds: with no index beyond 64 they
  // are a mask and a bit count.

  func contains(_ index: Int) -> Bool { index < 64 ? bits & (1 << UInt64(index)) != 0 : beyond?.contains(index) ?? false }

  /// The largest index below `limit`.
  func last(below limit: Int) -> Int? {
    if beyond == nil {
      let below = limit >= 64 ? bits : bits & ((1 << UInt64(max(limit, 0))) - 1)
      return below == 0 ? nil : UInt64.bitWidth - 1 - below.leadingZeroBitCount
    }
    var last: Int?
    forEach { if $0 < limit { last = $0 } }
    return last
  }

  func contains(where predicate: (Int) -> Bool) -> Bool {
    var found = false
    forEach { if predicate($0) { found = true } }
    return found
  }

  /// Whether it holds `limit` or some larger index.
  func contains(atLeast limit: Int) -> Bool {
    if limit < 64, bits >> UInt64(max(limit, 0)) != 0 { return true }
    return beyond?.contains { $0 >= limit } ?? false
  }
}
