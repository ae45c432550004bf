import Glibc
import OprunCore

/// Which files a request takes, once its patterns are matched: each file's last matching
/// pattern decides, and `excluded` removes whatever it matches.
struct FileSelection {
  struct File: Sendable {
    /// Absolute.
    var path: String
    /// What a record shows: relative to the manifest's folder when under it.
    var recordedPath: String
    var found: FileSetWalk.Found

    /// What is left where a file was moved from: it holds nothing to release.
    static let moved = File(
      path: "", recordedPath: "", found: FileSetWalk.Found(status: .unknown, followsLink: false, patterns: PatternSet()))
  }

  /// Sorted by the bytes of `recordedPath`.
  var files: [File] = []
  /// Indices of the request's patterns (exclusions aside) that matched no file.
  var unmatchedPatterns: [Int] = []

  /// The files `request` matches now; `looks`, under `--watch`, lends the statuses of files
  /// the watcher vouches for.
  init(_ request: FileSetRequest, looks: WatchedLooks? = nil) {
    let folder = LexicalPath.resolve(request.folder, from: "/")
    let manifestFolder = LexicalPath.resolve(request.manifestFolder, from: "/")
    let all = request.patterns + request.excluded
    let walk = FileSetWalk(
      patterns: all.enumerated().map { index, pattern in
        WalkPattern(
          pattern, from: folder, manifestFolder: manifestFolder,
          leadsWalk: index < request.patterns.count && !pattern.isExclusion)
      },
      manifestFolder: manifestFolder, looks: looks)
    func adds(_ file: File) -> Bool {
      file.found.patterns.contains { $0 < request.patterns.count && !request.patterns[$0].isExclusion }
    }
    // A start whose files only patterns that remove files matched (a job's output named
    // alone) changes only files that other starts found: it is looked up, not merged in.
    var (adding, removing): ([[File]], [[File]]) = ([], [])
    for run in walk.run().map(Self.sortedByRecordedPath) {
      if run.contains(where: adds) { adding.append(run) } else { removing.append(run) }
    }
    var removals: [String: PatternSet] = [:]
    for file in removing.joined() { removals[file.recordedPath, default: PatternSet()].formUnion(file.found.patterns) }
    let count = request.patterns.count
    var matched = PatternSet()
    func isTaken(_ file: File) -> Bool {
      var patterns = file.found.patterns
      if !removals.isEmpty, let removing = removals[file.recordedPath] { patterns.formUnion(removing) }
      matched.formUnion(patterns)
      guard let decisive = patterns.last(below: count) else { return false }
      return !request.patterns[decisive].isExclusion && !patterns.contains(atLeast: count)
    }
    // Filtered in place: most often every file is taken, and copying them all would cost
    // as much as deciding. One start's files are moved out of `adding`, which would
    // otherwise share them and make the filter copy them first.
    files = adding.count == 1 ? adding.removeLast() : Self.merged(adding)
    files.removeAll { !isTaken($0) }
    unmatchedPatterns = request.patterns.indices.filter { !request.patterns[$0].isExclusion && !matched.contains($0) }
  }

  /// The files of `runs` (each in the byte order of recorded paths) in that order, each
  /// path once: a file found from two starts is kept as first found, with the patterns of
  /// both.
  private static func merged(_ runs: [[File]]) -> [File] {
    let runs = runs.filter { !$0.isEmpty }
    if runs.count <= 1 { return runs.first ?? [] }
    var heads = Array(repeating: 0, count: runs.count)
    func head(_ run: Int) -> String { runs[run][heads[run]].recordedPath }
    var merged: [File] = []
    merged.reserveCapacity(runs.reduce(0) { $0 + $1.count })
    while true {
      let live = runs.indices.filter { heads[$0] < runs[$0].count }
      // The run whose next file comes first (the earliest of those that tie) gives every
      // file before the next of the others at once: a run is found by a binary search.
      guard var first = live.first else { return merged }
      for run in live.dropFirst() where ByteOrder.precedes(head(run), head(first)) { first = run }
      var end = runs[first].count
      if let bound = live.filter({ $0 != first }).map(head).min(by: ByteOrder.precedes) {
        var low = heads[first]
        while low < end {
          let middle = (low + end) / 2
          if ByteOrder.precedes(runs[first][middle].recordedPath, bound) { low = middle + 1 } else { end = middle }
        }
        end = max(end, heads[first] + 1)
      }
      let taken = runs[first][heads[first]..<end]
      heads[first] = end
      // A file two starts found is at the head of both: met again, it adds its patterns.
      if let last = merged.last, last.recordedPath == taken.first!.recordedPath {
        merged[merged.count - 1].found.patterns.formUnion(taken.first!.found.patterns)
        merged += taken.dropFirst()
      } else {
        merged += taken
      }
    }
  }

  /// `files` in the byte order of their recorded paths, each path once. A walk from one
  /// start gives them in that order already, but for a folder that could not be listed
  /// (recorded where its files would be) or one outside the manifest's folder.
  private static func sortedByRecordedPath(_ files: [File]) -> [File] {
    let inOrder = files.indices.dropFirst().allSatisfy { index in
      ByteOrder.precedes(files[index - 1].recordedPath, files[index].recordedPath)
    }
    if inOrder { return files }
    var sorted: [File] = []
    sorted.reserveCapacity(files.count)
    for index in ByteOrder.sortedIndices(files.count, key: { $1 += files[$0].recordedPath.utf8 }) {
      if let last = sorted.last, last.recordedPath == files[index].recordedPath {
        sorted[sorted.count - 1].found.patterns.formUnion(files[index].found.patterns)
      } else {
        sorted.append(files[index])
      }
    }
    return sorted
  }
}
