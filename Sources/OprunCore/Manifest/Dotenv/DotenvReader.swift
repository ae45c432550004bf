/// Reads a dotenv file (SPEC §15): `NAME=value` lines, as Docker Compose's `env_file` and
/// go-task's `dotenv` read them.
///
/// - Blank lines and lines whose first non-blank character is `#` are skipped; a UTF-8
///   byte order mark and `\r\n` line ends are accepted.
/// - `export ` before a name is ignored, so that the file can also be `source`d by a shell.
/// - A name is a letter or `_`, then letters, digits, `_`, `.` or `-`; blanks around `=` are
///   allowed. A name written twice takes its last value.
/// - An unquoted value is trimmed, and ends at a `#` that follows a blank (`A=b # note` is
///   `b`; `A=b#c` is `b#c`).
/// - `'single quotes'` keep everything literally; `"double quotes"` turn `\n`, `\r`, `\t`,
///   `\\`, `\"` and `\$` into what they stand for and keep any other `\` as written. Either
///   may run over several lines. After the closing quote only blanks and a `# comment` may follow.
/// - Nothing is interpolated: `$NAME` and `${NAME}` stay as written (the command's shell
///   expands what it is given).
///
/// Anything else — a line without `=`, a bad name, an unclosed quote — is a problem at its
/// line and column; the file's other lines still count, so that every problem is reported.
public enum DotenvReader {
  /// The variables `source` sets, in the order first written (a later value replaces an
  /// earlier one in place), and the problems found, in reading order.
  public static func read(_ source: SourceText) -> (entries: [EnvironmentEntry], problems: [Diagnostic]) {
    if let problem = source.encodingProblem() { return ([], [problem]) }
    var parser = DotenvParser(source)
    return parser.parse()
  }
}

/// The state of one pass over a dotenv file's bytes.
private struct DotenvParser {
  let source: SourceText
  let bytes: [UInt8]
  /// Invariant: the index of the next byte to read; `line` and `lineStart` describe it.
  var index = 0
  var line = 1
  var lineStart = 0
  var entries: [EnvironmentEntry] = []
  var positions: [String: Int] = [:]
  var problems: [Diagnostic] = []

  init(_ source: SourceText) {
    self.source = source
    bytes = source.bytes
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      index = 3
      lineStart = 3
    }
  }

  mutating func parse() -> (entries: [EnvironmentEntry], problems: [Diagnostic]) {
    while index < bytes.count {
      parseLine()
    }
    return (entries, problems)
  }

  private var location: SourceLocation {
    SourceLocation(file: source.path, line: line, column: index - lineStart + 1)
  }

  private func peek(_ offset: Int = 0) -> UInt8? {
    index + offset < bytes.count ? bytes[index + offset] : nil
  }

  private static func isBlank(_ byte: UInt8) -> Bool { byte == .space || byte == .tab }
  private static func isLineEnd(_ byte: UInt8) -> Bool { byte == .newline || byte == .carriageReturn }

  private mutating func skipBlanks() {
    while let byte = peek(), Self.isBlank(byte) { index += 1 }
  }

  /// Moves past the end of the current line (its `\n`, `\r\n` or `\r`).
  private mutating func skipRestOfLine() {
    while let byte = peek(), !Self.isLineEnd(byte) { index += 1 }
    takeLineEnd()
  }

  /// Moves past one line end at `index`, if there is one.
  private mutating func takeLineEnd() {
    guard let byte = peek(), Self.isLineEnd(byte) else { return }
    index += byte == .carriageReturn && peek(1) == .newline ? 2 : 1
    line += 1
    lineStart = index
  }

  private mutating func fail(_ message: String, at location: SourceLocation) {
    problems.append(Diagnostic(at: location, message))
    skipRestOfLine()
  }

  private mutating func parseLine() {
    skipBlanks()
    guard let first = peek(), !Self.isLineEnd(first), first != .hash else {
      skipRestOfLine()
      return
    }
    if bytes[index...].starts(with: Self.export), let after = peek(Self.export.count), Self.isBlank(after) {
      index += Self.export.count
      skipBlanks()
    }
    let nameStart = index
    let nameLocation = location
    while let byte = peek(), Self.isNameByte(byte, first: index == nameStart) { index += 1 }
    let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
    skipBlanks()
    guard peek() == .equals else {
      if name.isEmpty {
        fail("expected a variable name, a letter or '_', then letters, digits, '_', '.' or '-'", at: location)
      } else {
        fail("expected '=' after '\(name)': each line is NAME=value", at: location)
      }
      return
    }
    guard !name.isEmpty else {
      fail("expected a variable name before '='", at: nameLocation)
      return
    }
    index += 1
    skipBlanks()
    guard let value = parseValue() else { return }
    if let position = positions[name] {
      entries[position].value = value
    } else {
      positions[name] = entries.count
      entries.append(EnvironmentEntry(name, value))
    }
  }

  private static let export = Array("export".utf8)

  private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"): true
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"): !first
    default: false
    }
  }

  /// The value from `index` on, the line end taken; nil after reporting a problem.
  private mutating func parseValue() -> String? {
    switch peek() {
    case .singleQuote?, .doubleQuote?: return parseQuoted()
    default: return parseUnquoted()
    }
  }

  private mutating func parseUnquoted() -> String {
    let start = index
    var end = index
    while let byte = peek(), !Self.isLineEnd(byte) {
      if byte == .hash, index > start, Self.isBlank(bytes[index - 1]) { break }
      index += 1
      if !Self.isBlank(byte) { end = index }
    }
    skipRestOfLine()
    return String(decoding: bytes[start..<end], as: UTF8.self)
  }

  private mutating func parseQuoted() -> String? {
    let quote = bytes[index]
    let opening = location
    index += 1
    var value: [UInt8] = []
    while true {
      guard let byte = peek() else {
        let name = quote == .singleQuote ? "single" : "double"
        problems.append(Diagnostic(at: opening, "unclosed \(name) quote: the value runs to the end of the file"))
        return nil
      }
      if byte == quote {
        index += 1
        break
      }
      if byte == .backslash, quote == .doubleQuote, let next = peek(1), !Self.isLineEnd(next) {
        index += 2
        switch next {
        case UInt8(ascii: "n"): value.append(.newline)
        case UInt8(ascii: "r"): value.append(.carriageReturn)
        case UInt8(ascii: "t"): value.append(.tab)
        case .backslash, .doubleQuote, UInt8(ascii: "$"): value.append(next)
        default: value.append(contentsOf: [.backslash, next])
        }
        continue
      }
      if Self.isLineEnd(byte) {
        takeLineEnd()
        value.append(.newline)
        continue
      }
      value.append(byte)
      index += 1
    }
    skipBlanks()
    if let byte = peek(), !Self.isLineEnd(byte), byte != .hash {
      fail("unexpected text after the closing quote; put a '#' before a comment", at: location)
      return nil
    }
    skipRestOfLine()
    return String(decoding: value, as: UTF8.self)
  }
}

extension UInt8 {
  fileprivate static let space = UInt8(ascii: " ")
  fileprivate static let tab = UInt8(ascii: "\t")
  fileprivate static let newline = UInt8(ascii: "\n")
  fileprivate static let carriageReturn = UInt8(ascii: "\r")
  fileprivate static let hash = UInt8(ascii: "#")
  fileprivate static let equals = UInt8(ascii: "=")
  fileprivate static let singleQuote = UInt8(ascii: "'")
  fileprivate static let doubleQuote = UInt8(ascii: "\"")
  fileprivate static let backslash = UInt8(ascii: "\\")
}
