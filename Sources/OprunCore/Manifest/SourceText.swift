/// The bytes of a manifest file, kept for parsing and for the excerpts under diagnostics.
public struct SourceText: Sendable {
  /// The path as the user gave it; diagnostics name the file this way.
  public let path: String
  public let bytes: [UInt8]

  public init(path: String, bytes: [UInt8]) {
    self.path = path
    self.bytes = bytes
  }

  public init(path: String, text: String) {
    self.init(path: path, bytes: Array(text.utf8))
  }

  /// The 1-based line and column (in Unicode scalars, as libyaml counts) of a byte offset.
  ///
  /// Linear in the offset: meant for the rare diagnostic that only knows a byte offset.
  func location(ofByteOffset offset: Int) -> SourceLocation {
    var line = 1
    var column = 1
    var index = 0
    let end = min(offset, bytes.count)
    while index < end {
      let breakLength = LineBreak.length(in: bytes, at: index)
      if breakLength > 0 {
        line += 1
        column = 1
        index += breakLength
      } else {
        if bytes[index] & 0xC0 != 0x80 { column += 1 }
        index += 1
      }
    }
    return SourceLocation(file: path, line: line, column: column)
  }
}

/// The line breaks YAML knows: LF, CR, CR LF, NEL, LS and PS.
enum LineBreak {
  /// The length in bytes of the line break starting at `index`, or 0 if there is none.
  static func length(in bytes: [UInt8], at index: Int) -> Int {
    switch bytes[index] {
    case 0x0A: return 1
    case 0x0D: return index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
    case 0xC2: return index + 1 < bytes.count && bytes[index + 1] == 0x85 ? 2 : 0
    case 0xE2:
      guard index + 2 < bytes.count, bytes[index + 1] == 0x80 else { return 0 }
      return bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 ? 3 : 0
    default: return 0
    }
  }
}
