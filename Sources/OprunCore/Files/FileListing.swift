import Glibc

/// Files as recorded, in one buffer: per file its path, its kind and its digest, each ended
/// by a NUL (which no path, kind or digest holds), so that no two lists give the same bytes.
/// These bytes are what a snapshot's digest hashes (SPEC §10) and what `.oprun/inputs/` keeps
/// under that digest: a snapshot lays them out once, and a kept listing is compared with a
/// new one by its bytes, entry by entry only where they differ. Naming the one input of
/// 10,000 that changed then costs a comparison of two buffers and one string.
public struct FileListing: Sendable, Equatable {
  /// The listing's bytes, as they are hashed and kept.
  public let bytes: [UInt8]
  /// Where each file's entry starts, when the listing was laid out here; nil for one read
  /// back, whose entries are found as they are needed.
  let starts: [Int]?

  /// The listing of `files`, in their order.
  public init(_ files: [FileRecord]) { self.init(files[...]) }

  public init(_ files: ArraySlice<FileRecord>) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(files.count * 100)
    var starts: [Int] = []
    starts.reserveCapacity(files.count)
    for file in files {
      starts.append(bytes.count)
      Self.append(file, to: &bytes)
    }
    self.bytes = bytes
    self.starts = starts
  }

  /// Listings laid out apart (a slice of files each) as one, in order.
  public init(joining parts: [FileListing]) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(parts.reduce(0) { $0 + $1.bytes.count })
    var starts: [Int] = []
    starts.reserveCapacity(parts.reduce(0) { $0 + $1.entryStarts.count })
    for part in parts {
      let base = bytes.count
      starts += part.entryStarts.lazy.map { $0 + base }
      bytes += part.bytes
    }
    self.bytes = bytes
    self.starts = starts
  }

  /// The listing `bytes` hold, as kept; a damaged one is told when an entry is looked at.
  public init(bytes: [UInt8]) {
    self.bytes = bytes
    starts = nil
  }

  /// Appends the entry of `file`.
  private static func append(_ file: FileRecord, to bytes: inout [UInt8]) {
    func add(_ text: String) {
      var text = text
      text.withUTF8 { bytes.append(contentsOf: $0) }
      bytes.append(0)
    }
    add(file.path)
    add(file.kind.rawValue)
    add(file.digest)
  }

  /// Where each entry starts; empty from the first damaged one on.
  public var entryStarts: [Int] {
    if let starts { return starts }
    return bytes.withUnsafeBufferPointer { bytes in
      var starts: [Int] = []
      var offset = 0
      while offset < bytes.count, let entry = Entry(in: bytes, at: offset) {
        starts.append(offset)
        offset = entry.end
      }
      return starts
    }
  }

  /// Every file, made whole; nil when an entry is damaged.
  public var records: [FileRecord]? {
    bytes.withUnsafeBufferPointer { bytes in
      var records: [FileRecord] = []
      var offset = 0
      while offset < bytes.count {
        guard let entry = Entry(in: bytes, at: offset) else { return nil }
        records.append(entry.record(in: bytes))
        offset = entry.end
      }
      return records
    }
  }

  /// Where the parts of one entry lie.
  struct Entry {
    var path: Range<Int>
    var kind: FileKind
    /// The kind and the digest, each with its NUL: what tells two entries of a path apart.
    var content: Range<Int>
    var digest: Range<Int>
    var end: Int { content.upperBound }

    /// The entry starting at `offset`; nil when it is damaged.
    init?(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
      guard let pathEnd = Self.end(in: bytes, from: offset), let kindEnd = Self.end(in: bytes, from: pathEnd + 1),
        let digestEnd = Self.end(in: bytes, from: kindEnd + 1),
        let kind = FileListing.kind(named: UnsafeBufferPointer(rebasing: bytes[(pathEnd + 1)..<kindEnd]))
      else { return nil }
      path = offset..<pathEnd
      self.kind = kind
      content = (pathEnd + 1)..<(digestEnd + 1)
      digest = (kindEnd + 1)..<digestEnd
    }

    func record(in bytes: UnsafeBufferPointer<UInt8>) -> FileRecord {
      FileRecord(
        path: String(decoding: bytes[path], as: UTF8.self), kind: kind,
        digest: String(decoding: bytes[digest], as: UTF8.self))
    }

    /// Where the NUL ending the field that starts at `offset` is.
    private static func end(in bytes: UnsafeBufferPointer<UInt8>, from offset: Int) -> Int? {
      guard offset < bytes.count, let found = memchr(bytes.baseAddress! + offset, 0, bytes.count - offset) else {
        return nil
      }
      return UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - bytes.baseAddress!
    }
  }

  private static let kindNames = FileKind.allCases.map { ($0, Array($0.rawValue.utf8)) }

  private static func kind(named name: UnsafeBufferPointer<UInt8>) -> FileKind? {
    kindNames.first { $0.1.elementsEqual(name) }?.0
  }

  public static func == (a: FileListing, b: FileListing) -> Bool { a.bytes == b.bytes }
}
