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
  private static let numbersSize = 9 * 8
  private static let hexSize = 64
  /// Larger than any cache of a sane manifest: a bigger file is not read.
  private static let sizeLimit = 1 << 30

  /// The entries saved in `file`; nil when there is none, or it is not a whole cache file.
  static func load(from file: String) -> [String: HashCache.Entry]? {
    guard case .success(let bytes) = FileContents.read(path: file, limit: sizeLimit, regularOnly: true),
      bytes.count >= header.count + digestSize, bytes.starts(with: header)
    else { return nil }
    let body = bytes[..<(bytes.count - digestSize)]
    guard rawSHA256(body) == Array(bytes[(bytes.count - digestSize)...]) else { return nil }
    return bytes.withUnsafeBytes { decode($0[header.count..<body.count]) }
  }

  private static func decode(_ bytes: UnsafeRawBufferPointer.SubSequence) -> [String: HashCache.Entry]? {
    let raw = UnsafeRawBufferPointer(rebasing: bytes)
    var entries: [String: HashCache.Entry] = [:]
    // An entry takes about 150 bytes: growing the table as it fills would rehash it often.
    entries.reserveCapacity(raw.count / 150)
    var offset = 0
    func number(_ index: Int, after start: Int) -> Int64 {
      Int64(littleEndian: raw.loadUnaligned(fromByteOffset: start + index * 8, as: Int64.self))
    }
    while offset < raw.count {
      guard raw.count - offset >= 4 else { return nil }
      let pathLength = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
      let numbers = offset + 4 + pathLength
      let hex = numbers + numbersSize
      guard pathLength <= raw.count, hex + hexSize <= raw.count else { return nil }
      let path = String(decoding: raw[(offset + 4)..<numbers], as: UTF8.self)
      let status = FileStatus(
        device: UInt64(bitPattern: number(0, after: numbers)), inode: UInt64(bitPattern: number(1, after: numbers)),
        size: number(2, after: numbers),
        modified: Timestamp(seconds: number(3, after: numbers), nanoseconds: number(4, after: numbers)),
        changed: Timestamp(seconds: number(5, after: numbers), nanoseconds: number(6, after: numbers)),
        type: UInt32(S_IFREG))
      let hashedAt = Timestamp(seconds: number(7, after: numbers), nanoseconds: number(8, after: numbers))
      let digest = String(decoding: raw[hex..<(hex + hexSize)], as: UTF8.self)
      entries[path] = HashCache.Entry(status: status, hashedAt: hashedAt, digest: digest)
      offset = hex + hexSize
    }
    return entries
  }

  /// Writes `entries` to a new file renamed over `file`, making its folder if need be;
  /// false when that could not be done.
  static func save(_ entries: [String: HashCache.Entry], to file: String) -> Bool {
    var bytes = header
    bytes.reserveCapacity(header.count + entries.count * 200)
    for (path, entry) in entries { append(path, entry, to: &bytes) }
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
