/// A text already whole (not a stream still arriving), as lines.
public enum WholeText {
  /// The lines of `text`, without their newlines; a last line without a newline is one too,
  /// an empty text has none.
  public static func lines(of text: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if text.last == UInt8(ascii: "\n") || text.isEmpty { lines.removeLast() }
    return lines
  }
}
