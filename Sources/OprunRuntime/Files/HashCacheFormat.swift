import Crypto
import Glibc
import OprunCore

/// The hash cache's file: a header line, then per entry the path's length (4 bytes) and
/// bytes, nine 8-byte numbers (device, inode, size, modification, change and hashing times
/// as seconds and nanoseconds) and the 64 hex digits of the digest, all little-endian; then
/// the SHA-256 of everything before it, so that a damaged file is told from a good one.
enum HashCacheFormat {
  static let header = Array("oprun hash cache 1\n".utf8)
  static let digestSize = 32
  fileprivate static let numbersSize = 9 * 8
  fileprivate static let hexSize = 64
  /// Larger than any cache of a sane manifest: a bigger file is not read.
  private static let sizeLimit = 1 << 30

  /// The entries saved in `file`; nil when there is none, or it is not a whole cache file.
  static func load(from file: String) -> SavedHashes? {
    guard case .success(let bytes) = FileContents.read(path: file, limit: sizeLimit, regularOnly: true),
      bytes.count >= header.count + digestSize, bytes.starts(with: header)
    else { return nil }
    let body = bytes[..<(bytes.count - digestSize)]
    guard rawSHA256(body) == Array(bytes[(bytes.count - digestSize)...]) else { return nil }
    return SavedHashes(indexing: bytes)
  }

  /// Writes the entries of `saved` that `recorded` does not replace, and those of `recorded`,
  /// to a new file renamed over `file`, making its folder if need be; false when that could
  /// not be done.
  static func save(_ saved: SavedHashes, _ recorded: [String: HashCache.Entry], to file: String) -> Bool {
    var bytes = header
    bytes.reserveCapacity(saved.byteCount + recorded.count * 200)
    // Both in path order, merged: the file stays sorted by path (once one was), whatever
    // order the dictionary has, so that saving the same entries writes the same bytes.
    var newer = recorded.sorted { ByteOrder.precedes($0.key, $1.key) }[...]
    let replaced = Set(recorded.keys.compactMap(saved.offset(of:)))
    saved.forEachEntry { offset, path, entry in
      guard !replaced.contains(offset) else { return }
      while let next = newer.first, Self.precedes(next.key, path) {
        append(next.key, next.value, to: &bytes)
        newer.removeFirst()
      }
      bytes += entry
    }
    for (path, entry) in newer { append(path, entry, to: &bytes) }
    bytes += rawSHA256(bytes[...])
    mkdir(PathParts.folder(of: file), 0o755)
    let temporary = file + ".\(getpid()).new"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return false }
    let written = writeAll(descriptor, bytes)
    close(descriptor)
    guard written, rename(temporary, file) == 0 else {
      unlink(temporary)
      return false
    }
    return true
  }

  private static func precedes(_ path: String, _ other: UnsafeRawBufferPointer) -> Bool {
    var path = path
    return path.withUTF8 { ByteOrder.precedes($0, other.assumingMemoryBound(to: UInt8.self)) }
  }

  private static func append(_ path: String, _ entry: HashCache.Entry, to bytes: inout [UInt8]) {
    let status = entry.status
    withUnsafeBytes(of: UInt32(path.utf8.count).littleEndian) { bytes += $0 }
    bytes += path.utf8
    let numbers: [Int64] = [
      Int64(bitPattern: status.device), Int64(bitPattern: status.inode), status.size,
      status.modified.seconds, status.modified.nanoseconds, status.changed.seconds, status.changed.nanoseconds,
      entry.hashedAt.seconds, entry.hashedAt.nanoseconds,
    ]
    for number in numbers { withUnsafeBytes(of: number.littleEndian) { bytes += $0 } }
    bytes += entry.digest.utf8
  }

  private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  private static func rawSHA256(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    var hasher = SHA256()
    bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
    return Array(hasher.finalize())
  }
}

/// A loaded cache file, kept whole as its bytes with a table of where each path's entry
/// starts: loading makes no string and allocates nothing per entry (10,000 of them took
/// milliseconds), and a lookup decodes only the entry it finds. Never changed once made.
struct SavedHashes: Sendable {
  /// The whole file, header and trailer included.
  private let bytes: [UInt8]
  /// Where in `bytes` the entries lie.
  private let entries: Range<Int>
  /// Open addressing by `pathHash`, probing linearly: the offsets in `bytes` of entries;
  /// 0, which is inside the header, for none.
  private let slots: [UInt32]
  /// How many paths it holds.
  let count: Int

  static let empty = SavedHashes(bytes: [], entries: 0..<0, slots: [0], count: 0)

  /// The size of the file it was loaded from.
  var byteCount: Int { bytes.count }

  /// `body` given a way to look entries up that holds no reference to the buffers: threads
  /// looking up thousands of files at once would otherwise contend for their counts.
  func withLookup<T>(_ body: (Lookup) -> T) -> T {
    bytes.withUnsafeBytes { raw in slots.withUnsafeBufferPointer { slots in body(Lookup(raw: raw, slots: slots)) } }
  }

  /// Where the entry for `path` starts; nil when there is none.
  func offset(of path: String) -> Int? { withLookup { $0.offset(of: path) } }

  /// The entry at `offset`, whole.
  func entry(at offset: Int) -> HashCache.Entry {
    withLookup { lookup in
      let stamp = lookup.stamp(at: offset)
      return HashCache.Entry(status: stamp.status, hashedAt: stamp.hashedAt, digest: lookup.digest(at: offset))
    }
  }

  /// The entries, read in place, for as long as the call that gives it lasts.
  struct Lookup {
    fileprivate let raw: UnsafeRawBufferPointer
    fileprivate let slots: UnsafeBufferPointer<UInt32>

    /// Where the entry for `path` starts; nil when there is none.
    func offset(of path: String) -> Int? {
      SavedHashes.withBytes(of: path) { path in
        let offset = Int(slots[SavedHashes.slot(for: path, in: raw, slots: slots)])
        return offset == 0 ? nil : offset
      }
    }

    /// The status and hashing time of the entry at `offset`.
    func stamp(at offset: Int) -> (status: FileStatus, hashedAt: Timestamp) {
      let numbers = EntryParts(in: raw, at: offset).numbers
      func number(_ index: Int) -> Int64 {
        Int64(littleEndian: raw.loadUnaligned(fromByteOffset: numbers + index * 8, as: Int64.self))
      }
      let status = FileStatus(
        device: UInt64(bitPattern: number(0)), inode: UInt64(bitPattern: number(1)), size: number(2),
        modified: Timestamp(seconds: number(3), nanoseconds: number(4)),
        changed: Timestamp(seconds: number(5), nanoseconds: number(6)), type: UInt32(S_IFREG))
      return (status, Timestamp(seconds: number(7), nanoseconds: number(8)))
    }

    /// The digest of the entry at `offset`.
    func digest(at offset: Int) -> String {
      String(decoding: raw[EntryParts(in: raw, at: offset).digest], as: UTF8.self)
    }
  }

  /// `body` given each entry in file order: where it starts, its path's bytes and its own.
  func forEachEntry(_ body: (_ offset: Int, _ path: UnsafeRawBufferPointer, _ entry: UnsafeRawBufferPointer) -> Void) {
    bytes.withUnsafeBytes { raw in
      var offset = entries.lowerBound
      while offset < entries.upperBound {
        let parts = EntryParts(in: raw, at: offset)
        body(offset, parts.pathBytes(in: raw), UnsafeRawBufferPointer(rebasing: raw[offset..<parts.end]))
        offset = parts.end
      }
    }
  }

  /// The slot holding the entry for `path`, or else the empty one where it would go: the
  /// table is never full.
  fileprivate static func slot(
    for path: UnsafeRawBufferPointer, in raw: UnsafeRawBufferPointer, slots: UnsafeBufferPointer<UInt32>
  ) -> Int {
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: pathHash(path)) & mask
    while slots[slot] != 0, !sameBytes(path, EntryParts(in: raw, at: Int(slots[slot])).pathBytes(in: raw)) {
      slot = (slot + 1) & mask
    }
    return slot
  }

  /// A hash of a path's bytes for the table, eight at a time, each word folded in by a wide
  /// multiply as wyhash does: far cheaper than `Hasher`'s SipHash, and a table of our own
  /// paths needs no defence against chosen collisions.
  private static func pathHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    func mix(_ word: UInt64) -> UInt64 {
      let product = word.multipliedFullWidth(by: 0x9FB2_1C65_1E98_DF25)
      return product.high ^ product.low
    }
    var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      hash = mix(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      offset += 8
    }
    var tail: UInt64 = 0
    for byte in bytes[offset...] { tail = tail << 8 | UInt64(byte) }
    return mix(hash ^ tail)
  }

  private static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
  }

  /// `body` given the UTF-8 bytes of `path`, copied only if the string does not hold them as such.
  fileprivate static func withBytes<T>(of path: String, _ body: (UnsafeRawBufferPointer) -> T) -> T {
    if let result = path.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
    return Array(path.utf8).withUnsafeBytes(body)
  }
}

extension SavedHashes {
  /// The entries of `bytes`, a cache file whose trailer was checked, in a table built in one
  /// pass; nil when the entries do not fill its body exactly or name a path twice.
  init?(indexing bytes: [UInt8]) {
    let entries = HashCacheFormat.header.count..<(bytes.count - HashCacheFormat.digestSize)
    var slots = [UInt32](repeating: 0, count: Self.slotCount(forEntryBytes: entries.count))
    var count = 0
    let whole = bytes.withUnsafeBytes { raw in
      slots.withUnsafeMutableBufferPointer { slots in
        var offset = entries.lowerBound
        while offset < entries.upperBound {
          guard entries.upperBound - offset >= 4 else { return false }
          let parts = EntryParts(in: raw, at: offset)
          guard parts.end <= entries.upperBound else { return false }
          let slot = Self.slot(for: parts.pathBytes(in: raw), in: raw, slots: UnsafeBufferPointer(slots))
          guard slots[slot] == 0 else { return false }
          slots[slot] = UInt32(offset)
          count += 1
          offset = parts.end
        }
        return true
      }
    }
    guard whole else { return nil }
    self.init(bytes: bytes, entries: entries, slots: slots, count: count)
  }

  /// A power of two at least twice the most entries `size` bytes can hold: probes stay short
  /// with the table at most half full, and a power of two makes a hash's slot a mask.
  private static func slotCount(forEntryBytes size: Int) -> Int {
    let mostEntries = max(size / EntryParts.smallestSize, 1)
    return 1 << (Int.bitWidth - (2 * mostEntries - 1).leadingZeroBitCount)
  }
}

/// Where the parts of an entry lie in its file.
private struct EntryParts {
  /// The size of an entry with an empty path: no entry is smaller.
  static let smallestSize = 4 + HashCacheFormat.numbersSize + HashCacheFormat.hexSize

  let path: Range<Int>

  /// The entry starting at `offset` in `raw`, which holds at least the path length's 4 bytes.
  init(in raw: UnsafeRawBufferPointer, at offset: Int) {
    let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    path = (offset + 4)..<(offset + 4 + length)
  }

  func pathBytes(in raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: raw[path])
  }

  var numbers: Int { path.upperBound }
  var digest: Range<Int> { (numbers + HashCacheFormat.numbersSize)..<end }
  var end: Int { numbers + HashCacheFormat.numbersSize + HashCacheFormat.hexSize }
}
