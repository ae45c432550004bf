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
  }

  /// Sorted by the bytes of `recordedPath`.
  var files: [File] = []
  /// Indices of the request's patterns (exclusions aside) that matched no file.
  var unmatchedPatterns: [Int] = []

  init(_ request: FileSetRequest) {
    let folder = LexicalPath.resolve(request.folder, from: "/")
    let manifestFolder = LexicalPath.resolve(request.manifestFolder, from: "/")
    let all = request.patterns + request.excluded
    var walk = FileSetWalk(
      patterns: all.map { WalkPattern($0, from: folder) },
      privateFolder: LexicalPath.resolve(".oprun", from: manifestFolder))
    walk.run()
    var matchedSome = Array(repeating: false, count: request.patterns.count)
    for (path, found) in walk.found {
      let patterns = found.patterns.sorted()
      for index in patterns where index < request.patterns.count { matchedSome[index] = true }
      guard let decisive = patterns.last(where: { $0 < request.patterns.count }),
        !request.patterns[decisive].isExclusion, !patterns.contains(where: { $0 >= request.patterns.count })
      else { continue }
      let recorded = LexicalPath.relative(path, to: manifestFolder).flatMap { $0 == "." ? nil : $0 } ?? path
      files.append(File(path: path, recordedPath: recorded, found: found))
    }
    files.sort { $0.recordedPath.utf8.lexicographicallyPrecedes($1.recordedPath.utf8) }
    unmatchedPatterns = request.patterns.indices.filter { !request.patterns[$0].isExclusion && !matchedSome[$0] }
  }
}
