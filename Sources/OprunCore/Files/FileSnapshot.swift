import Glibc

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
  /// `files` laid out as their digest hashes them.
  public var listing: FileListing

  /// The first file that could not be read: whether it changed cannot be told.
  public var firstUnreadable: FileRecord? { files.first { $0.kind == .unreadable } }

  public init(files: [FileRecord], unmatchedPatterns: [Int], digest: String, listing: FileListing? = nil) {
    self.files = files
    self.unmatchedPatterns = unmatchedPatterns
    self.digest = digest
    self.listing = listing ?? FileListing(files)
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
    between(old: FileListing(old), new: FileListing(new))
  }

  /// nil when both listings (each sorted by path) hold the same files with the same contents,
  /// or when `old`, read back, is damaged: it then names nothing. What is the same in both
  /// is skipped by comparing bytes; only entries that differ are looked at one by one.
  public static func between(old: FileListing, new: FileListing) -> FileDifference? {
    between(old: old, new: new, ignoring: nil)
  }

  /// The same, counting only the paths `ignoring` refuses; nil also when it takes every path
  /// that differs.
  public static func between(old: FileListing, new: FileListing, ignoring: ((String) -> Bool)?) -> FileDifference? {
    let starts = new.entryStarts
    return old.bytes.withUnsafeBufferPointer { old in
      new.bytes.withUnsafeBufferPointer { new -> FileDifference? in
        var first: FileDifference?
        var count = 0
        func note(_ change: Change, _ path: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) {
          // One string per differing path at most, and only when it is asked about or named.
          guard ignoring != nil || first == nil else { return count += 1 }
          let text = String(decoding: bytes[path], as: UTF8.self)
          if let ignoring, ignoring(text) { return }
          count += 1
          if first == nil { first = FileDifference(change: change, path: text, count: 0) }
        }
        // `i` and `j` are where an entry starts in each, `j` being `starts[k]` (or the end).
        var (i, j, k) = (0, 0, 0)
        while true {
          let same = commonPrefix(old, from: i, new, from: j)
          if i + same == old.count && j + same == new.count { break }
          // Entries wholly inside what is the same are the same in both: the entry holding
          // the first difference starts at the same distance into each.
          var next = k
          var high = starts.count
          while next < high {
            let middle = (next + high) / 2
            if starts[middle] <= j + same { next = middle + 1 } else { high = middle }
          }
          next -= 1
          // Where the new listing ends inside it, every entry left in it is the same.
          if j + same == new.count { next = starts.count }
          if next > k {
            let to = next == starts.count ? new.count : starts[next]
            i += to - j
            (j, k) = (to, next)
          }
          if j == new.count {
            guard let gone = FileListing.Entry(in: old, at: i) else { return nil }
            note(.removed, gone.path, in: old)
            i = gone.end
            continue
          }
          guard let added = FileListing.Entry(in: new, at: j) else { return nil }
          guard i < old.count else {
            note(.added, added.path, in: new)
            (j, k) = (added.end, k + 1)
            continue
          }
          guard let kept = FileListing.Entry(in: old, at: i) else { return nil }
          let order = ByteOrder.order(
            UnsafeBufferPointer(rebasing: old[kept.path]), UnsafeBufferPointer(rebasing: new[added.path]))
          if order <= 0 {
            if order < 0 {
              note(.removed, kept.path, in: old)
            } else if !old[kept.content].elementsEqual(new[added.content]) {
              note(.changed, added.path, in: new)
            }
            i = kept.end
          }
          if order >= 0 {
            if order > 0 { note(.added, added.path, in: new) }
            (j, k) = (added.end, k + 1)
          }
        }
        first?.count = count
        return first
      }
    }
  }

  /// How many bytes from `i` in `a` and from `j` in `b` are the same: compared a page at a
  /// time, byte by byte only within the page that differs.
  private static func commonPrefix(
    _ a: UnsafeBufferPointer<UInt8>, from i: Int, _ b: UnsafeBufferPointer<UInt8>, from j: Int
  ) -> Int {
    let limit = min(a.count - i, b.count - j)
    var same = 0
    while same < limit {
      let size = min(4096, limit - same)
      if memcmp(a.baseAddress! + i + same, b.baseAddress! + j + same, size) != 0 { break }
      same += size
    }
    while same < limit && a[i + same] == b[j + same] { same += 1 }
    return same
  }
}
