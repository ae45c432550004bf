/// What a path turned out to be when it was looked at.
public enum FileKind: String, Sendable, CaseIterable {
  case file
  /// A symbolic link met in a walk, recorded by the path it points to.
  case link
  /// Recorded by kind alone: never opened.
  case fifo
  case device
  case socket
  /// It could not be read: it counts as changed until it can.
  case unreadable
}

/// One file of a job's inputs or outputs, as recorded (SPEC §10).
public struct FileRecord: Hashable, Sendable {
  /// Relative to the manifest's folder when under it, absolute otherwise.
  public var path: String
  public var kind: FileKind
  /// 64 lower-case hex digits of the SHA-256 of the content (of the target's path, for a
  /// link); empty for what is recorded by kind alone.
  public var digest: String

  public init(path: String, kind: FileKind, digest: String) {
    self.path = path
    self.kind = kind
    self.digest = digest
  }
}

/// The files a job's patterns match at one moment, with their contents' hashes.
public struct FileSnapshot: Sendable, Equatable {
  /// Sorted by path, byte by byte.
  public var files: [FileRecord]
  /// The indices, among the patterns asked for, of those that are no exclusion and matched nothing.
  public var unmatchedPatterns: [Int]
  /// One hash of every record: two snapshots with the same digest hold the same files with the same contents.
  public var digest: String

  public init(files: [FileRecord], unmatchedPatterns: [Int], digest: String) {
    self.files = files
    self.unmatchedPatterns = unmatchedPatterns
    self.digest = digest
  }
}

/// How one listing of files differs from an earlier one: the first path, in order, that was
/// added, removed or changed, and how many paths differ in all.
public struct FileDifference: Equatable, Sendable {
  public enum Change: String, Sendable {
    case added
    case removed
    case changed
  }

  public var change: Change
  public var path: String
  /// Every path that differs, this one included.
  public var count: Int

  public init(change: Change, path: String, count: Int) {
    self.change = change
    self.path = path
    self.count = count
  }

  /// nil when both listings (each sorted by path) hold the same files with the same contents.
  public static func between(old: [FileRecord], new: [FileRecord]) -> FileDifference? {
    merge(
      oldCount: old.count, new: new, order: { i, j in ByteOrder.order(old[i].path, new[j].path) },
      same: { i, j in old[i] == new[j] }, oldPath: { old[$0].path })
  }

  /// nil when `old`, a kept listing, and `new` (each sorted by path) hold the same files with
  /// the same contents. The listing is read in place: no string is made but the one named.
  public static func between(old: FileListing, new: [FileRecord]) -> FileDifference? {
    old.withEntries { entries, bytes in
      func oldBytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
      return merge(
        oldCount: entries.count, new: new,
        order: { i, j in ByteOrder.order(oldBytes(entries[i].path), new[j].path) },
        same: { i, j in
          entries[i].kind == new[j].kind && ByteOrder.order(oldBytes(entries[i].digest), new[j].digest) == 0
        },
        oldPath: old.path(at:))
    }
  }

  /// The walk of both sorted listings in step, files named by their indices; `order(i, j)`
  /// compares `old`'s path `i` with `new`'s `j`, negative when `old`'s comes first.
  private static func merge(
    oldCount: Int, new: [FileRecord], order: (Int, Int) -> Int, same: (Int, Int) -> Bool, oldPath: (Int) -> String
  ) -> FileDifference? {
    var first: FileDifference?
    var count = 0
    var (i, j) = (0, 0)
    func note(_ change: Change, _ path: @autoclosure () -> String) {
      count += 1
      if first == nil { first = FileDifference(change: change, path: path(), count: 0) }
    }
    while i < oldCount || j < new.count {
      let relation = j == new.count ? -1 : i == oldCount ? 1 : order(i, j)
      if relation < 0 {
        note(.removed, oldPath(i))
        i += 1
      } else if relation > 0 {
        note(.added, new[j].path)
        j += 1
      } else {
        if !same(i, j) { note(.changed, new[j].path) }
        i += 1
        j += 1
      }
    }
    first?.count = count
    return first
  }
}
