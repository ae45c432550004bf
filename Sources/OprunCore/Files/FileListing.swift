import Glibc

/// Files as recorded, kept in one buffer laid out as `.oprun/inputs/` keeps a listing (SPEC
/// §10): per file `KIND DIGEST PATH` and a NUL, a path holding any byte but NUL. A listing
/// of many thousand inputs is read back to name the one that changed; compared in place,
/// it makes no string but that one's path, and frees as one buffer.
public struct FileListing: Sendable, Equatable {
  /// The listing's bytes, as they are kept.
  public let bytes: [UInt8]
  /// Where each file's parts lie in `bytes`, in listing order.
  let entries: [Entry]

  struct Entry: Equatable, Sendable {
    var kind: FileKind
    var digest: Range<Int>
    var path: Range<Int>
  }

  public var count: Int { entries.count }

  /// The listing of `files`, in their order.
  public init(_ files: [FileRecord]) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(files.count * 96)
    var entries: [Entry] = []
    entries.reserveCapacity(files.count)
    for file in files {
      bytes += file.kind.rawValue.utf8
      bytes.append(Self.space)
      let digest = bytes.count
      bytes += file.digest.utf8
      let digestEnd = bytes.count
      bytes.append(Self.space)
      bytes += file.path.utf8
      entries.append(Entry(kind: file.kind, digest: digest..<digestEnd, path: (digestEnd + 1)..<bytes.count))
      bytes.append(0)
    }
    self.bytes = bytes
    self.entries = entries
  }

  /// The listing `bytes` hold; nil when any entry is damaged.
  public init?(bytes: [UInt8]) {
    // Scanned with memchr: the generic splits took longer than the decision.
    var entries: [Entry] = []
    let whole = bytes.withUnsafeBufferPointer { bytes in
      func find(_ byte: UInt8, in range: Range<Int>) -> Int? {
        guard !range.isEmpty, let found = memchr(bytes.baseAddress! + range.lowerBound, Int32(byte), range.count)
        else { return nil }
        return UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - bytes.baseAddress!
      }
      var start = 0
      while start < bytes.count {
        let end = find(0, in: start..<bytes.count) ?? bytes.count
        defer { start = end + 1 }
        guard end > start else { continue }
        guard let kindEnd = find(Self.space, in: start..<end),
          let digestEnd = find(Self.space, in: (kindEnd + 1)..<end),
          let kind = Self.kind(named: UnsafeBufferPointer(rebasing: bytes[start..<kindEnd]))
        else { return false }
        entries.append(Entry(kind: kind, digest: (kindEnd + 1)..<digestEnd, path: (digestEnd + 1)..<end))
      }
      return true
    }
    guard whole else { return nil }
    self.bytes = bytes
    self.entries = entries
  }

  /// Every file, made whole.
  public var records: [FileRecord] { entries.indices.map(record(at:)) }

  func record(at index: Int) -> FileRecord {
    let entry = entries[index]
    return FileRecord(path: text(entry.path), kind: entry.kind, digest: text(entry.digest))
  }

  func path(at index: Int) -> String { text(entries[index].path) }

  /// `body` given the entries and the bytes they lie in, read in place.
  func withEntries<T>(_ body: (UnsafeBufferPointer<Entry>, UnsafeBufferPointer<UInt8>) -> T) -> T {
    entries.withUnsafeBufferPointer { entries in bytes.withUnsafeBufferPointer { body(entries, $0) } }
  }

  private func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

  private static let space = UInt8(ascii: " ")
  private static let kindNames = FileKind.allCases.map { ($0, Array($0.rawValue.utf8)) }

  private static func kind(named name: UnsafeBufferPointer<UInt8>) -> FileKind? {
    kindNames.first { $0.1.elementsEqual(name) }?.0
  }

  public static func == (a: FileListing, b: FileListing) -> Bool { a.bytes == b.bytes }
}
