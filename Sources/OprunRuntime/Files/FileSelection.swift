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
      patterns: all.enumerated().map { index, pattern in
        WalkPattern(pattern, from: folder, leadsWalk: index < request.patterns.count && !pattern.isExclusion)
      },
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
    files = Self.sortedByRecordedPath(files)
    unmatchedPatterns = request.patterns.indices.filter { !request.patterns[$0].isExclusion && !matchedSome[$0] }
  }

  /// `files` in the byte order of their recorded paths. Their indices are sorted over one
  /// buffer holding every path's bytes: sorting the files themselves retains and releases
  /// their strings at each comparison and move, which on a large set cost more than the walk.
  private static func sortedByRecordedPath(_ files: [File]) -> [File] {
    var bytes: [UInt8] = []
    var ranges: [Range<Int>] = []
    ranges.reserveCapacity(files.count)
    for file in files {
      let start = bytes.count
      bytes.append(contentsOf: file.recordedPath.utf8)
      ranges.append(start..<bytes.count)
    }
    var order = Array(files.indices)
    bytes.withUnsafeBufferPointer { bytes in
      ranges.withUnsafeBufferPointer { ranges in
        order.sort { a, b in
          ByteOrder.precedes(
            UnsafeBufferPointer(rebasing: bytes[ranges[a]]), UnsafeBufferPointer(rebasing: bytes[ranges[b]]))
        }
      }
    }
    return order.map { files[$0] }
  }
}

/// Paths ordered by their bytes, as `sort` and `ls` in the C locale order them.
enum ByteOrder {
  static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    let shorter = min(a.count, b.count)
    let common = shorter == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, shorter)
    return common != 0 ? common < 0 : a.count < b.count
  }
}
