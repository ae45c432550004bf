import Glibc
import OprunCore

/// The files a list of patterns matches, found by walking each folder they start from once.
///
/// Patterns starting from the same folder share one walk, and a walk passing through the
/// folder another pattern starts from takes that pattern along from there. Only patterns
/// that add files lead walks: one that removes files is matched where they go. Walks do not
/// follow links; the folder a walk starts from is named directly and is followed.
struct FileSetWalk {
  /// A file some pattern matched.
  struct Found {
    var status: FileStatus
    /// Reached through a link named directly: its content is the target's.
    var followsLink: Bool
    /// Indices of the patterns that matched it, each once, in no particular order.
    var patterns: [Int]
  }

  private let patterns: [WalkPattern]
  /// The manifest's `.oprun/`, never matched.
  private let privateFolder: String
  /// By absolute path.
  private(set) var found: [String: Found] = [:]
  /// Pattern indices, by the folder (absolute, not yet walked) they start from.
  private var waiting: [String: [Int]] = [:]

  /// Walks for `patterns`; `privateFolder` and what is under it are never matched.
  init(patterns: [WalkPattern], privateFolder: String) {
    self.patterns = patterns
    self.privateFolder = privateFolder
  }

  /// Finds every file the patterns match.
  mutating func run() {
    for (index, pattern) in patterns.enumerated() { waiting[pattern.base, default: []].append(index) }
    // Outermost first, so that a folder inside another is reached by the outer walk.
    for base in waiting.keys.sorted(by: { $0.utf8.count < $1.utf8.count }) {
      guard let indices = waiting[base], leadsWalk(indices) || !isFolder(base) else { continue }
      waiting.removeValue(forKey: base)
      start(at: base, indices)
    }
  }

  /// The patterns `indices`, which start from `base`, matched from there: the base named
  /// directly, so followed when it is a link.
  private mutating func start(at base: String, _ indices: [Int]) {
    guard !LexicalPath.isWithin(base, privateFolder), let status = FileStatus.of(base, followingLink: true)
    else { return }
    if status.isFolder {
      let progress = indices.map { (pattern: $0, progress: patterns[$0].progressAtBase) }
      walk(base, progress)
      return
    }
    let followsLink = FileStatus.of(base, followingLink: false)?.isLink ?? false
    for index in indices where patterns[index].rest.isEmpty && !patterns[index].namesFolder {
      record(base, status, followsLink: followsLink, pattern: index)
    }
  }

  /// Matches the entries of `folder` against the patterns in progress there, descending
  /// into a folder while some pattern may still match below it, or starts from inside it.
  private mutating func walk(_ folder: String, _ progress: [(pattern: Int, progress: WalkPattern.Progress)]) {
    guard let listing = FolderEntries(folder) else {
      recordUnlistable(folder, progress.filter { $0.progress.matchesEverything }.map(\.pattern))
      return
    }
    for entry in listing.entries {
      let path = folder == "/" ? "/" + entry.name : folder + "/" + entry.name
      if path == privateFolder { continue }
      var lazyStatus: FileStatus?
      func status() -> FileStatus? {
        if lazyStatus == nil { lazyStatus = listing.status(of: entry.name) }
        return lazyStatus
      }
      let isFolder = entry.type == DT_DIR || (entry.type == DT_UNKNOWN && status()?.isFolder == true)
      var inside: [(pattern: Int, progress: WalkPattern.Progress)] = []
      var matched: [Int] = []
      for (index, current) in progress {
        let step = patterns[index].step(current, name: entry.name, isFolder: isFolder)
        if step.matched && !isFolder { matched.append(index) }
        if isFolder && step.inside.isLive { inside.append((index, step.inside)) }
      }
      if isFolder {
        if let starting = waiting.removeValue(forKey: path) {
          inside += starting.map { ($0, patterns[$0].progressAtBase) }
        }
        if leadsWalk(inside.map(\.pattern)) || waitsBelow(path) { walk(path, inside) }
      } else if !matched.isEmpty, let status = status() {
        for index in matched { record(path, status, followsLink: false, pattern: index) }
      }
    }
  }

  /// A folder `patterns` take whole but that cannot be listed: recorded as unreadable, so
  /// that it counts as changed until it can be read.
  private mutating func recordUnlistable(_ folder: String, _ patterns: [Int]) {
    guard !patterns.isEmpty, var status = FileStatus.of(folder, followingLink: true) else { return }
    status.type = 0
    for index in patterns { record(folder, status, followsLink: false, pattern: index) }
  }

  /// Whether some pattern that leads walks and has not started yet starts below `folder`.
  private func waitsBelow(_ folder: String) -> Bool {
    waiting.contains { base, indices in leadsWalk(indices) && LexicalPath.isWithin(base, folder) }
  }

  private func leadsWalk(_ indices: [Int]) -> Bool { indices.contains { patterns[$0].leadsWalk } }

  private func isFolder(_ path: String) -> Bool { FileStatus.of(path, followingLink: true)?.isFolder == true }

  private mutating func record(_ path: String, _ status: FileStatus, followsLink: Bool, pattern: Int) {
    let fresh = Found(status: status, followsLink: followsLink, patterns: [])
    found[path, default: fresh].patterns.appendIfAbsent(pattern)
  }
}

extension Array where Element == Int {
  fileprivate mutating func appendIfAbsent(_ index: Int) {
    if !contains(index) { append(index) }
  }
}
