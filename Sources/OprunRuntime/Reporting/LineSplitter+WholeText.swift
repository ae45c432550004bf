extension LineSplitter {
  /// The lines of a text already whole, without their newlines; a last line without a
  /// newline is one too, an empty text has none.
  static func lines(of text: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if text.last == UInt8(ascii: "\n") || text.isEmpty { lines.removeLast() }
    return lines
  }
}
