import Glibc
import OprunCore

/// SHA-256 of what a snapshot records, as lower-case hex.
enum ContentDigest {
  /// What reading one file gave.
  struct Reading: Sendable {
    var kind: FileKind
    /// Empty unless `kind` is `.file`.
    var digest: String
    /// The file as it was opened, for the hash cache; nil when it could not be opened.
    var status: FileStatus?
    /// When the reading began, by the wall clock.
    var startedAt: Timestamp
    var bytesRead: Int
  }

  /// The content of the regular file at `path`, read through `buffer`, starting at the wall
  /// clock's `startedAt`. A link is not followed unless `followingLink`; anything but a
  /// regular file is recorded by its kind without a byte read, and opening never blocks (a
  /// FIFO with no writer).
  static func readFile(
    _ path: String, followingLink: Bool, startedAt: Timestamp, buffer: UnsafeMutableRawBufferPointer
  ) -> Reading {
    var reading = Reading(kind: .unreadable, digest: "", status: nil, startedAt: startedAt, bytesRead: 0)
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLink ? 0 : O_NOFOLLOW))
    guard descriptor >= 0 else { return reading }
    defer { close(descriptor) }
    var opened = stat()
    guard fstat(descriptor, &opened) == 0 else { return reading }
    let status = FileStatus(opened)
    guard status.isRegular else {
      reading.kind = status.kind
      return reading
    }
    posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
    // A file that goes on past its size by more than this never ends, or grows faster than it
    // is read (a pseudo-file such as /proc/self/pagemap has size 0 and no end): it cannot be
    // read whole, and is recorded so.
    let limit = Int(opened.st_size) + Self.growthLimit
    var hasher = SHA256()
    while reading.bytesRead <= limit {
      let count = read(descriptor, buffer.baseAddress, buffer.count)
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else { return reading }
      if count == 0 { break }
      hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
      reading.bytesRead += count
    }
    guard reading.bytesRead <= limit else { return reading }
    reading.kind = .file
    reading.digest = hex(hasher.finalize())
    reading.status = status
    return reading
  }

  /// How many bytes past its size a file may give while it is read.
  static let growthLimit = 16 << 20

  /// The link at `path`, recorded by its target's text; nil when it cannot be read.
  static func ofLink(_ path: String) -> String? {
    var target = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = target.withUnsafeMutableBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { readlink(path, $0.baseAddress!, $0.count) }
    }
    guard count >= 0 else { return nil }
    return of(target[..<count])
  }

  /// The hash of `bytes`.
  static func of(_ bytes: some Collection<UInt8>) -> String {
    var hasher = SHA256()
    Array(bytes).withUnsafeBytes { hasher.update(bufferPointer: $0) }
    return hex(hasher.finalize())
  }

  static func hex(_ digest: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(64)
    for byte in digest {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0xf)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}

extension FileSnapshot {
  /// The snapshot of `files`, its digest the hash of their listing's bytes (``FileListing``).
  init(files: [FileRecord], unmatchedPatterns: [Int]) {
    let listing = FileListing(files)
    self.init(files: files, unmatchedPatterns: unmatchedPatterns, digest: Self.digest(of: listing), listing: listing)
  }

  /// The same, its listing laid out a slice of files at a time across `pool`'s threads and
  /// this one (reading into `buffer`): for a large listing, laying it out costs more than
  /// hashing it.
  init(files: [FileRecord], unmatchedPatterns: [Int], on pool: HashingPool, buffer: UnsafeMutableRawBufferPointer) {
    let sliceSize = 1024
    let sliceCount = (files.count + sliceSize - 1) / sliceSize
    let slices = [FileListing](initializingInPlace: sliceCount) { slices in
      let slices = DisjointSlices(slices)
      pool.forEach(sliceCount, callerBuffer: buffer) { slice, _ in
        slices.initialize(slice, to: FileListing(files[slice * sliceSize..<min(files.count, (slice + 1) * sliceSize)]))
      }
    }
    let listing = FileListing(joining: slices)
    self.init(files: files, unmatchedPatterns: unmatchedPatterns, digest: Self.digest(of: listing), listing: listing)
  }

  static func digest(of listing: FileListing) -> String {
    var hasher = SHA256()
    listing.bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
    return ContentDigest.hex(hasher.finalize())
  }
}
