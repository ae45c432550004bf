import Glibc

/// Every line of a run's watch stream so far (SPEC §8), for watchers that attach late.
///
/// The lines are kept in an unnamed temporary file (``UnnamedFile``), so that memory does
/// not grow with the run's output: only the newest lines, less than ``tailCapacity``, wait
/// in memory to be written together. The file is made when they are first written: most
/// runs' histories never outgrow memory, and a file made and freed is a share of a short
/// run's time (an inode taken as it starts, given back as it exits).
///
/// Invariant: the history is whole lines, each ending in a newline; offsets handed out
/// (``length``, ``lines(from:atMost:)``) are line boundaries.
final class WatchHistory {
  /// 64 KiB: one write(2) for many events, little held in memory.
  static let tailCapacity = 64 << 10

  /// The file, once the history has outgrown ``tailCapacity``; -1 before.
  private var fd: Int32 = -1
  /// Where the file may be made, in order.
  private let folders: [String]
  /// Bytes written to the file: the history's first `fileLength` bytes.
  private var fileLength = 0
  /// The history's bytes after `fileLength`, not written yet.
  private var tail: [UInt8] = []
  /// Why the history stopped being kept (a write failed, or it reached `limit`); from then
  /// on nothing more is kept.
  private(set) var failure: String?
  /// Bytes at most: a run's output could otherwise fill the disk its jobs need.
  let limit: Int
  /// Set once the run's last line is in: nothing follows.
  private(set) var isComplete = false

  /// A new, empty history of at most `limit` bytes, whose file goes in the first of `folders`
  /// that can hold it.
  init(in folders: [String] = UnnamedFile.defaultFolders(), limit: Int = defaultLimit) {
    self.folders = folders
    self.limit = limit
    tail.reserveCapacity(Self.tailCapacity)
  }

  deinit { if fd >= 0 { close(fd) } }

  /// 1 GiB: hours of a busy run's events and output, and a bound on the disk it takes.
  static let defaultLimit = 1 << 30

  /// Bytes in the history.
  var length: Int { fileLength + tail.count }

  /// Bytes of the history held in memory, not yet in the file.
  var memoryHeld: Int { tail.count }

  /// Adds one line (newline included); nothing once complete or failed.
  func append(_ line: [UInt8]) {
    guard failure == nil, !isComplete else { return }
    guard length + line.count <= limit else {
      failure = "it has reached \(limit >> 20) MiB"
      return
    }
    if tail.count + line.count > Self.tailCapacity { writeTail() }
    if failure == nil { tail.append(contentsOf: line) }
  }

  /// The run's last line is in.
  func complete() {
    isComplete = true
  }

  /// Whole lines from `offset` (a line boundary below ``length``): as many as fit in
  /// `limit` bytes, and at least one, however long.
  func lines(from offset: Int, atMost limit: Int) -> Result<[UInt8], SystemError> {
    precondition(offset >= 0 && offset < length, "no line starts at \(offset)")
    let step = max(limit, 1)
    var bytes: [UInt8] = []
    var end = offset
    repeat {
      let next = min(end + step, length)
      switch read(end..<next) {
      case .success(let read):
        // Lines that fit the limit; or the end of the one line longer than it.
        let newline = bytes.isEmpty ? read.lastIndex(of: UInt8(ascii: "\n")) : read.firstIndex(of: UInt8(ascii: "\n"))
        if let newline { return .success(bytes + read[...newline]) }
        bytes += read
      case .failure(let error):
        return .failure(error)
      }
      end = next
    } while end < length
    // Unreachable while the invariant holds: every line ends in a newline.
    return .success(bytes)
  }

  /// The history's bytes in `range`, which need not start or end at a line boundary.
  func bytes(in range: Range<Int>) -> Result<[UInt8], SystemError> {
    precondition(range.lowerBound >= 0 && range.upperBound <= length, "outside the history")
    return read(range)
  }

  /// The end of the line `offset` falls in, newline included: what follows `offset` up to
  /// the next line boundary; empty when `offset` is one (or the end of the history).
  func restOfLine(from offset: Int) -> Result<[UInt8], SystemError> {
    guard offset > 0, offset < length else { return .success([]) }
    var bytes: [UInt8] = []
    var start = offset - 1
    while start < length {
      let end = min(start + Self.tailCapacity, length)
      switch read(start..<end) {
      case .failure(let error):
        return .failure(error)
      case .success(var read):
        if start == offset - 1 {
          // The byte before `offset` says whether a line ends there.
          if read.first == UInt8(ascii: "\n") { return .success([]) }
          read.removeFirst()
        }
        if let newline = read.firstIndex(of: UInt8(ascii: "\n")) { return .success(bytes + read[...newline]) }
        bytes += read
      }
      start = end
    }
    // Unreachable while the invariant holds: every line ends in a newline.
    return .success(bytes)
  }

  private func read(_ range: Range<Int>) -> Result<[UInt8], SystemError> {
    var bytes = [UInt8]()
    bytes.reserveCapacity(range.count)
    if range.lowerBound < fileLength {
      let count = min(range.upperBound, fileLength) - range.lowerBound
      let fromFile = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        initialized = 0
        while initialized < count {
          let got = pread(
            fd, buffer.baseAddress! + initialized, count - initialized, off_t(range.lowerBound + initialized))
          if got < 0, errno == EINTR { continue }
          guard got > 0 else { return }
          initialized += got
        }
      }
      guard fromFile.count == count else { return .failure(SystemError("read the watch history")) }
      bytes.append(contentsOf: fromFile)
    }
    if range.upperBound > fileLength {
      let start = max(range.lowerBound, fileLength) - fileLength
      bytes.append(contentsOf: tail[start..<range.upperBound - fileLength])
    }
    return .success(bytes)
  }

  private func writeTail() {
    if fd < 0 {
      switch UnnamedFile.open(inFirstOf: folders) {
      case .success(let opened): fd = opened
      case .failure(let error):
        failure = "no temporary file can hold it (\(error))"
        return
      }
    }
    var written = 0
    while written < tail.count {
      let count = tail.withUnsafeBytes {
        pwrite(fd, $0.baseAddress! + written, $0.count - written, off_t(fileLength + written))
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        failure = "cannot write it: " + errorMessage(count == 0 ? EIO : errno)
        return
      }
      written += count
    }
    fileLength += written
    tail.removeAll(keepingCapacity: true)
  }
}
