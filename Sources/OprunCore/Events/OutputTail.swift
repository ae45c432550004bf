/// The last lines a job wrote, kept in a small ring so that a failure can be shown with
/// its context at the end of a run without holding all of its output.
public struct OutputTail: Sendable, Equatable {
  /// How many lines are kept.
  public let capacity: Int
  /// Lines longer than this many bytes are cut (at a character boundary) and marked `…`.
  public let maximumLineLength: Int
  /// Every line seen, kept or not.
  public private(set) var totalLines = 0

  /// Invariant: `ring.count <= capacity`; once full, `start` is the oldest line's index.
  private var ring: [[UInt8]] = []
  private var start = 0

  public init(capacity: Int = 10, maximumLineLength: Int = 400) {
    self.capacity = max(capacity, 1)
    self.maximumLineLength = max(maximumLineLength, 1)
  }

  /// The kept lines, oldest first, without their newlines.
  public var lines: [[UInt8]] {
    Array(ring[start...] + ring[..<start])
  }

  /// How many earlier lines are no longer kept.
  public var omittedLines: Int { totalLines - ring.count }

  /// Adds the lines of `text`; a last line without a newline counts as a line.
  public mutating func append(_ text: [UInt8]) {
    for line in WholeText.lines(of: text) { appendLine(Array(line)) }
  }

  private mutating func appendLine(_ line: [UInt8]) {
    totalLines += 1
    let kept = line.count > maximumLineLength ? truncated(line) : line
    if ring.count < capacity {
      ring.append(kept)
    } else {
      ring[start] = kept
      start = (start + 1) % capacity
    }
  }

  private func truncated(_ line: [UInt8]) -> [UInt8] {
    var end = maximumLineLength
    while end > 0, line[end] & 0xC0 == 0x80 { end -= 1 }
    return Array(line[..<end]) + Array("…".utf8)
  }
}
