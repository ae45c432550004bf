/// A strict recursive-descent JSON parser over bytes (RFC 8259): no comments, no trailing
/// commas, no leading zeros, no raw control characters in strings, no lone surrogates, no
/// invalid UTF-8, no duplicate keys; recursion bounded by `maximumDepth`.
struct JSONParser {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let maximumDepth: Int
  /// Invariant: `0...bytes.count`; everything before it has been read.
  private var position = 0
  private var depth = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  /// The whole input as one value, whitespace allowed around it.
  mutating func document() throws(JSONError) -> JSONValue {
    skipWhitespace()
    let value = try value()
    skipWhitespace()
    guard position == bytes.count else { throw fail("unexpected text after the value") }
    return value
  }

  private mutating func value() throws(JSONError) -> JSONValue {
    guard let byte = peek() else { throw fail("unexpected end of text") }
    switch byte {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      depth += 1
      defer { depth -= 1 }
      guard depth <= maximumDepth else { throw fail("nested deeper than \(maximumDepth)") }
      return byte == UInt8(ascii: "{") ? try object() : try array()
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw fail("unexpected character")
    }
  }

  private mutating func object() throws(JSONError) -> JSONValue {
    position += 1  // {
    var members: [(key: String, value: JSONValue)] = []
    // Duplicate keys: a linear look through a small object costs less than hashing its keys.
    var keys: Set<String>?
    skipWhitespace()
    if peek() == UInt8(ascii: "}") {
      position += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string key") }
      let keyOffset = position
      let key = try string()
      if members.count == Self.linearKeyLimit { keys = Set(members.map(\.key)) }
      let isNew = keys.map { !$0.contains(key) } ?? !members.contains { $0.key == key }
      guard isNew else { throw JSONError(offset: keyOffset, "duplicate key '\(key)'") }
      keys?.insert(key)
      skipWhitespace()
      try expect(UInt8(ascii: ":"), "expected ':'")
      skipWhitespace()
      members.append((key, try value()))
      skipWhitespace()
      if peek() == UInt8(ascii: ",") {
        position += 1
        continue
      }
      try expect(UInt8(ascii: "}"), "expected ',' or '}'")
      return .object(members)
    }
  }

  private mutating func array() throws(JSONError) -> JSONValue {
    position += 1  // [
    var elements: [JSONValue] = []
    skipWhitespace()
    if peek() == UInt8(ascii: "]") {
      position += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try value())
      skipWhitespace()
      if peek() == UInt8(ascii: ",") {
        position += 1
        continue
      }
      try expect(UInt8(ascii: "]"), "expected ',' or ']'")
      return .array(elements)
    }
  }

  /// Objects up to this many members find duplicate keys without a set.
  private static let linearKeyLimit = 16

  /// A string literal: its escapes decoded, its raw bytes checked as UTF-8.
  private mutating func string() throws(JSONError) -> String {
    let start = position
    position += 1  // "
    // Most strings have no escape: they are made straight from the input.
    var end = position
    var isASCII = true
    while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
      isASCII = isASCII && bytes[end] < 0x80
      end += 1
    }
    if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
      let raw = UnsafeBufferPointer(rebasing: bytes[position..<end])
      // ASCII is valid UTF-8 as it is: only other text needs the (slower) validation.
      let text = isASCII ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
      guard let text else { throw JSONError(offset: start, "invalid UTF-8 in a string") }
      position = end + 1
      return text
    }
    var decoded = Array(bytes[position..<end])
    position = end
    while true {
      guard let byte = peek() else { throw JSONError(offset: start, "unterminated string") }
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        guard let text = String(validating: decoded, as: UTF8.self) else {
          throw JSONError(offset: start, "invalid UTF-8 in a string")
        }
        return text
      case UInt8(ascii: "\\"):
        position += 1
        try escape(into: &decoded)
      case 0..<0x20:
        throw fail("control character in a string")
      default:
        decoded.append(byte)
        position += 1
      }
    }
  }

  private mutating func escape(into decoded: inout [UInt8]) throws(JSONError) {
    guard let byte = peek() else { throw fail("unterminated escape") }
    position += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
    case UInt8(ascii: "b"): decoded.append(0x08)
    case UInt8(ascii: "f"): decoded.append(0x0C)
    case UInt8(ascii: "n"): decoded.append(0x0A)
    case UInt8(ascii: "r"): decoded.append(0x0D)
    case UInt8(ascii: "t"): decoded.append(0x09)
    case UInt8(ascii: "u"): decoded.append(contentsOf: try unicodeEscape())
    default:
      position -= 1
      throw fail("invalid escape")
    }
  }

  /// After `\u`: one scalar, from a surrogate pair when it takes two escapes, as UTF-8.
  private mutating func unicodeEscape() throws(JSONError) -> [UInt8] {
    let first = try hexQuad()
    var scalarValue = first
    switch first {
    case 0xD800...0xDBFF:
      guard peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u") else { throw fail("lone high surrogate") }
      position += 2
      let second = try hexQuad()
      guard (0xDC00...0xDFFF).contains(second) else { throw fail("high surrogate without its low one") }
      scalarValue = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
    case 0xDC00...0xDFFF:
      throw fail("lone low surrogate")
    default:
      break
    }
    var encoded: [UInt8] = []
    // Every value here is a scalar: surrogates were either paired or refused above.
    Unicode.UTF8.encode(Unicode.Scalar(scalarValue)!) { encoded.append($0) }
    return encoded
  }

  private mutating func hexQuad() throws(JSONError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = peek(), let digit = Self.hexDigit(byte) else { throw fail("expected four hex digits") }
      value = value << 4 | digit
      position += 1
    }
    return value
  }

  private static func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, returned as written.
  private mutating func number() throws(JSONError) -> String {
    let start = position
    if peek() == UInt8(ascii: "-") { position += 1 }
    if peek() == UInt8(ascii: "0") {
      position += 1
      if let next = peek(), Self.isDigit(next) { throw fail("leading zero in a number") }
    } else {
      try digits()
    }
    if peek() == UInt8(ascii: ".") {
      position += 1
      try digits()
    }
    if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
      position += 1
      if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
      try digits()
    }
    return String(decoding: bytes[start..<position], as: UTF8.self)
  }

  private mutating func digits() throws(JSONError) {
    guard let first = peek(), Self.isDigit(first) else { throw fail("expected a digit") }
    while let byte = peek(), Self.isDigit(byte) { position += 1 }
  }

  private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

  private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONError) -> JSONValue {
    let count = word.utf8CodeUnitCount
    guard position + count <= bytes.count,
      word.withUTF8Buffer({ Array($0) }) == Array(bytes[position..<position + count])
    else { throw fail("unexpected character") }
    position += count
    return value
  }

  private mutating func expect(_ byte: UInt8, _ message: String) throws(JSONError) {
    guard peek() == byte else { throw fail(peek() == nil ? "unexpected end of text" : message) }
    position += 1
  }

  private mutating func skipWhitespace() {
    while let byte = peek(),
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
        || byte == UInt8(ascii: "\t")
    {
      position += 1
    }
  }

  private func peek(_ ahead: Int = 0) -> UInt8? {
    position + ahead < bytes.count ? bytes[position + ahead] : nil
  }

  private func fail(_ message: String) -> JSONError { JSONError(offset: position, message) }
}
