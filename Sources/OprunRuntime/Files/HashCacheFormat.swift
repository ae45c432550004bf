import Glibc
import OprunCore

/// The hash cache's file: a header line, then blocks of entries. The first holds the entries
/// as the file was last written whole, sorted by path; each later one what a run recorded
/// since, appended, so that one new hash costs its own bytes and not the whole file's. An
/// entry replaces any earlier one of its path. A block is the size of its entries (8 bytes),
/// the entries and the XXH64 of both, so that a damaged or half-written one is told from a
/// good one: the blocks before it still count, and the next save writes the file whole.
/// An entry is the path's length (4 bytes) and bytes, nine 8-byte numbers (device, inode,
/// size, modification, change and hashing times as seconds and nanoseconds) and the 64 hex
/// digits of the digest, all little-endian.
enum HashCacheFormat {
  static let header = Array("oprun hash cache 2\n".utf8)
  /// The size of a block's check: an XXH64 catches damage, and hashes the 1.5 MB of a
  /// 10,000-file cache in a tenth of SHA-256's time, which every run's load pays.
  static let checkSize = 8
  fileprivate static let numbersSize = 9 * 8
  fileprivate static let hexSize = 64
  /// The bytes a block adds around its entries.
  static let blockFraming = 8 + checkSize
  /// Larger than any cache of a sane manifest: a bigger file is not read.
  private static let sizeLimit = 1 << 30

  /// The entries saved in `file`; nil when there is none, or it is not a cache file whose
  /// first block is whole. A file that does not start with the header is not read further:
  /// junk of any size costs one short read.
  static func load(from file: String) -> SavedHashes? {
    guard case .success(let start) = FileContents.readPrefix(path: file, count: header.count), start == header,
      case .success(let bytes) = FileContents.read(path: file, limit: sizeLimit, regularOnly: true),
      bytes.starts(with: header)
    else { return nil }
    var blocks: [Range<Int>] = []
    var offset = header.count
    while bytes.count - offset >= blockFraming {
      let size = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
      guard size <= UInt64(bytes.count - offset - blockFraming) else { break }
      let end = offset + 8 + Int(size)
      guard check(of: bytes[offset..<end]) == Array(bytes[end..<(end + checkSize)]) else { break }
      blocks.append((offset + 8)..<end)
      offset = end + checkSize
    }
    guard let first = blocks.first else { return nil }
    return SavedHashes(
      indexing: bytes, blocks: blocks,
      layout: offset == bytes.count
        ? FileLayout(whole: first.upperBound + checkSize, appended: offset - first.upperBound - checkSize) : nil)
  }

  /// Writes the entries of `saved` that `recorded` does not replace, and those of `recorded`,
  /// to a new file of one block renamed over `file`, making its folder if need be; its
  /// layout, or nil when that could not be done.
  static func rewrite(_ saved: SavedHashes, _ recorded: [String: HashCache.Entry], to file: String) -> FileLayout? {
    var fresh: [UInt8] = []
    for (path, entry) in recorded { append(path, entry, to: &fresh) }
    var body: [UInt8] = []
    body.reserveCapacity(saved.byteCount + fresh.count)
    // In path order, whatever order the dictionary has: saving the same entries writes the
    // same bytes.
    var pieces: [(path: UnsafeRawBufferPointer, entry: UnsafeRawBufferPointer)] = []
    let replaced = Set(recorded.keys.compactMap(saved.offset(of:)))
    saved.withLiveEntries { liveEntries in
      fresh.withUnsafeBytes { fresh in
        liveEntries { offset, path, entry in
          if !replaced.contains(offset) { pieces.append((path, entry)) }
        }
        EntryParts.forEach(in: fresh, 0..<fresh.count) { parts in
          pieces.append((parts.pathBytes(in: fresh), UnsafeRawBufferPointer(rebasing: fresh[parts.start..<parts.end])))
        }
        pieces.sort { ByteOrder.precedes($0.path.assumingMemoryBound(to: UInt8.self), $1.path.assumingMemoryBound(to: UInt8.self)) }
        for piece in pieces { body += piece.entry }
      }
    }
    var bytes = header
    appendBlock(body, to: &bytes)
    let folder = PathParts.folder(of: file)
    let state = StateFolder(path: folder)
    let prefix = "." + PathParts.fileName(of: file) + "."
    guard case .success = state.makeFolder(),
      let (descriptor, temporary) = state.createTemporaryFile(in: folder, prefix: prefix)
    else { return nil }
    let written = bytes.withUnsafeBytes { writeWhole(descriptor, $0) } == 0
    close(descriptor)
    guard written, rename(temporary, file) == 0 else {
      unlink(temporary)
      return nil
    }
    return FileLayout(whole: bytes.count, appended: 0)
  }

  /// Appends `recorded` to `file` as a block, in one write; the bytes added, or nil when the
  /// file is gone or could not be written.
  static func append(_ recorded: [String: HashCache.Entry], to file: String) -> Int? {
    var body: [UInt8] = []
    for (path, entry) in recorded.sorted(by: { ByteOrder.precedes($0.key, $1.key) }) { append(path, entry, to: &body) }
    var block: [UInt8] = []
    appendBlock(body, to: &block)
    // Without blocking or following a link: something else put where the file was (a FIFO
    // with no reader would hold the open forever) is no file to append to.
    let descriptor = open(file, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
      block.withUnsafeBytes({ writeWhole(descriptor, $0) }) == 0
    else { return nil }
    return block.count
  }

  /// The bytes `recorded` takes as an appended block.
  static func blockSize(of recorded: [String: HashCache.Entry]) -> Int {
    recorded.keys.reduce(blockFraming) { $0 + EntryParts.smallestSize + $1.utf8.count }
  }

  private static func appendBlock(_ body: [UInt8], to bytes: inout [UInt8]) {
    let start = bytes.count
    withUnsafeBytes(of: UInt64(body.count).littleEndian) { bytes += $0 }
    bytes += body
    bytes += check(of: bytes[start...])
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

  private static func check(of bytes: ArraySlice<UInt8>) -> [UInt8] {
    withUnsafeBytes(of: bytes.withUnsafeBytes { XXHash64.hash($0) }.littleEndian) { Array($0) }
  }
}

/// Where a cache file's blocks end: what an appended block adds to it is weighed against what
/// its first block holds, to decide when it is written whole again.
struct FileLayout: Equatable, Sendable {
  /// The header and the first block.
  var whole: Int
  /// The blocks after it.
  var appended: Int
}

/// A loaded cache file, kept whole as its bytes with a table of where each path's entry
/// starts: loading makes no string and allocates nothing per entry (10,000 of them took
/// milliseconds), and a lookup decodes only the entry it finds. Never changed once made.
struct SavedHashes: Sendable {
  /// The whole file, header and trailer included.
  private let bytes: [UInt8]
  /// Where in `bytes` the entries of each good block lie, in file order.
  private let blocks: [Range<Int>]
  /// Open addressing by `pathHash`, probing linearly: the offsets in `bytes` of entries, the
  /// last of a path's; 0, which is inside the header, for none.
  private let slots: [UInt32]
  /// How many paths it holds.
  let count: Int
  /// The file's blocks, when every one is good; nil when it must be written whole again.
  let layout: FileLayout?

  static let empty = SavedHashes(bytes: [], blocks: [], slots: [0], count: 0, layout: nil)

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

  /// `body` given a way to visit each path's entry that stands (the last of its path): where
  /// it starts, its path's bytes and its own, valid during the call.
  func withLiveEntries(
    _ body: ((_ visit: (_ offset: Int, _ path: UnsafeRawBufferPointer, _ entry: UnsafeRawBufferPointer) -> Void) -> Void)
      -> Void
  ) {
    withLookup { lookup in
      body { visit in
        for block in blocks {
          EntryParts.forEach(in: lookup.raw, block) { parts in
            let path = parts.pathBytes(in: lookup.raw)
            guard Int(lookup.slots[Self.slot(for: path, in: lookup.raw, slots: lookup.slots)]) == parts.start else { return }
            visit(parts.start, path, UnsafeRawBufferPointer(rebasing: lookup.raw[parts.start..<parts.end]))
          }
        }
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
  /// The entries of the good `blocks` of `bytes`, a cache file, in a table built in one pass,
  /// a later entry of a path replacing an earlier one; nil when the entries do not fill
  /// their blocks exactly.
  init?(indexing bytes: [UInt8], blocks: [Range<Int>], layout: FileLayout?) {
    let size = blocks.reduce(0) { $0 + $1.count }
    var slots = [UInt32](repeating: 0, count: Self.slotCount(forEntryBytes: size))
    var count = 0
    let whole = bytes.withUnsafeBytes { raw in
      slots.withUnsafeMutableBufferPointer { slots in
        blocks.allSatisfy { block in
          EntryParts.forEach(in: raw, block) { parts in
            let slot = Self.slot(for: parts.pathBytes(in: raw), in: raw, slots: UnsafeBufferPointer(slots))
            if slots[slot] == 0 { count += 1 }
            slots[slot] = UInt32(parts.start)
          }
        }
      }
    }
    guard whole else { return nil }
    self.init(bytes: bytes, blocks: blocks, slots: slots, count: count, layout: layout)
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

  let start: Int
  let path: Range<Int>

  /// The entry starting at `offset` in `raw`, which holds at least the path length's 4 bytes.
  init(in raw: UnsafeRawBufferPointer, at offset: Int) {
    let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    start = offset
    path = (offset + 4)..<(offset + 4 + length)
  }

  /// `body` given each entry of `range` in order; false when they do not fill it exactly.
  @discardableResult
  static func forEach(in raw: UnsafeRawBufferPointer, _ range: Range<Int>, _ body: (EntryParts) -> Void) -> Bool {
    var offset = range.lowerBound
    while offset < range.upperBound {
      guard range.upperBound - offset >= smallestSize else { return false }
      let parts = EntryParts(in: raw, at: offset)
      guard parts.end <= range.upperBound else { return false }
      body(parts)
      offset = parts.end
    }
    return true
  }

  func pathBytes(in raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: raw[path])
  }

  var numbers: Int { path.upperBound }
  var digest: Range<Int> { (numbers + HashCacheFormat.numbersSize)..<end }
  var end: Int { numbers + HashCacheFormat.numbersSize + HashCacheFormat.hexSize }
}
