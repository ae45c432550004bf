import Glibc

/// Cuts a byte stream into lines, each delivered with its `\n`.
///
/// Bytes after the last newline wait for the next chunk; `finish` delivers
/// them as a final partial line. A line longer than `maximumLength` is
/// delivered in pieces of that length (without a newline), so one endless
/// line cannot hold unbounded memory. Concatenating what is delivered gives
/// back the stream, byte for byte.
struct LineSplitter {
  let maximumLength: Int
  /// Invariant: holds no newline, and fewer than `maximumLength` bytes between calls.
  private var pending: [UInt8] = []

  init(maximumLength: Int) {
    precondition(maximumLength > 0, "a line needs room for one byte")
    self.maximumLength = maximumLength
  }

  /// Delivers every line that `chunk` completes.
  mutating func split(_ chunk: ArraySlice<UInt8>, _ deliver: (ArraySlice<UInt8>) -> Void) {
    var start = chunk.startIndex
    while let newline = Self.firstNewline(in: chunk, from: start) {
      let line = chunk[start...newline]
      if pending.isEmpty {
        deliverInPieces(line, deliver)
      } else {
        pending.append(contentsOf: line)
        deliverInPieces(pending[...], deliver)
        pending.removeAll(keepingCapacity: true)
      }
      start = newline + 1
    }
    pending.append(contentsOf: chunk[start...])
    deliverOverlongPieces(deliver)
  }

  /// Delivers what is left after the last newline, if anything.
  mutating func finish(_ deliver: (ArraySlice<UInt8>) -> Void) {
    guard !pending.isEmpty else { return }
    deliver(pending[...])
    pending.removeAll()
  }

  /// Delivers a complete line, cut into pieces of at most `maximumLength`.
  private func deliverInPieces(_ line: ArraySlice<UInt8>, _ deliver: (ArraySlice<UInt8>) -> Void) {
    var start = line.startIndex
    while line.endIndex - start > maximumLength {
      deliver(line[start..<start + maximumLength])
      start += maximumLength
    }
    deliver(line[start...])
  }

  /// Delivers full-length pieces of an unfinished line, keeping the rest pending.
  private mutating func deliverOverlongPieces(_ deliver: (ArraySlice<UInt8>) -> Void) {
    guard pending.count >= maximumLength else { return }
    var start = 0
    while pending.count - start >= maximumLength {
      deliver(pending[start..<start + maximumLength])
      start += maximumLength
    }
    pending.removeSubrange(0..<start)
  }

  private static func firstNewline(in chunk: ArraySlice<UInt8>, from start: Int) -> Int? {
    guard start < chunk.endIndex else { return nil }
    return chunk.withUnsafeBytes { bytes -> Int? in
      let offset = start - chunk.startIndex
      guard let base = bytes.baseAddress,
        let found = memchr(base + offset, 0x0A, bytes.count - offset)
      else { return nil }
      return chunk.startIndex + (base.distance(to: UnsafeRawPointer(found)))
    }
  }
}
