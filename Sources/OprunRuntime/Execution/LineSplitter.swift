import Glibc

/// Cuts a byte stream into lines, each delivered with its line end (`\n`, or as
/// ``LineEndings`` says).
///
/// Bytes after the last line end wait for the next chunk; `finish` delivers
/// them as a final partial line. A line longer than `maximumLength` is
/// delivered in pieces of that length (without a line end), so one endless
/// line cannot hold unbounded memory. Concatenating what is delivered gives
/// back the stream, byte for byte.
struct LineSplitter {
  let maximumLength: Int
  let endings: LineEndings
  /// Invariant: holds no line end, and fewer than `maximumLength` bytes between calls.
  private var pending: [UInt8] = []

  init(maximumLength: Int, endings: LineEndings = .newline) {
    precondition(maximumLength > 0, "a line needs room for one byte")
    self.maximumLength = maximumLength
    self.endings = endings
  }

  /// Delivers every line that `chunk` completes.
  mutating func split(_ chunk: ArraySlice<UInt8>, _ deliver: (ArraySlice<UInt8>) -> Void) {
    var ends = LineEndSearch(chunk, endings: endings)
    var start = chunk.startIndex
    while let end = ends.next(from: start) {
      let line = chunk[start...end]
      if pending.isEmpty {
        deliverInPieces(line, deliver)
      } else {
        pending.append(contentsOf: line)
        deliverInPieces(pending[...], deliver)
        pending.removeAll(keepingCapacity: true)
      }
      start = end + 1
    }
    pending.append(contentsOf: chunk[start...])
    deliverOverlongPieces(deliver)
  }

  /// Delivers what is left after the last line end, if anything.
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
}

/// Finds the line ends of one chunk in order. Each byte that can end a line is looked for
/// with `memchr` and the place found is kept until the search passes it, so a chunk is
/// scanned once for each, however its lines mix `\n` and `\r`.
private struct LineEndSearch {
  private static let newline = UInt8(ascii: "\n")
  private static let carriageReturn = UInt8(ascii: "\r")

  let chunk: ArraySlice<UInt8>
  let endsAtReturn: Bool
  /// The next `\n` (and `\r`) at or after the place last searched from; `endIndex` for none.
  private var nextNewline: Int
  private var nextReturn: Int

  init(_ chunk: ArraySlice<UInt8>, endings: LineEndings) {
    self.chunk = chunk
    endsAtReturn = endings == .newlineOrReturn
    nextNewline = chunk.startIndex - 1
    nextReturn = endsAtReturn ? chunk.startIndex - 1 : chunk.endIndex
  }

  /// The index of the last byte of the line that begins at `start`, if the chunk ends it.
  mutating func next(from start: Int) -> Int? {
    if nextNewline < start { nextNewline = Self.find(Self.newline, in: chunk, from: start) }
    if nextReturn < start { nextReturn = Self.find(Self.carriageReturn, in: chunk, from: start) }
    let end = min(nextNewline, nextReturn)
    guard end < chunk.endIndex else { return nil }
    // `\r\n` is one line end when both are in hand.
    if end == nextReturn, end + 1 == nextNewline, nextNewline < chunk.endIndex { return nextNewline }
    return end
  }

  private static func find(_ byte: UInt8, in chunk: ArraySlice<UInt8>, from start: Int) -> Int {
    guard start < chunk.endIndex else { return chunk.endIndex }
    return chunk.withUnsafeBytes { bytes -> Int in
      let offset = start - chunk.startIndex
      guard let base = bytes.baseAddress, let found = memchr(base + offset, Int32(byte), bytes.count - offset)
      else { return chunk.endIndex }
      return chunk.startIndex + base.distance(to: UnsafeRawPointer(found))
    }
  }
}
