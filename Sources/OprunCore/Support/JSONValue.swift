/// A JSON value, as ``JSONValue/parse(_:limits:)`` reads it (RFC 8259, strictly).
///
/// Objects keep their members in the order written (a duplicate key is an error, so a
/// member is never ambiguous); numbers keep their text, so that nothing is lost or
/// rewritten on the way through (`1.50` stays `1.50`, a 20-digit id stays whole).
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// The number as written, already checked against JSON's number grammar.
  case number(String)
  case string(String)
  case array([JSONValue])
  case object([(key: String, value: JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.number(let x), .number(let y)): x == y
    case (.string(let x), .string(let y)): x == y
    case (.array(let x), .array(let y)): x == y
    case (.object(let x), .object(let y)):
      x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: false
    }
  }

  /// The member `key` of an object; nil for a missing member or a value that is no object.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.key == key }?.value
  }

  public var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  public var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// A number without fraction or exponent that fits an `Int`.
  public var intValue: Int? {
    if case .number(let text) = self { return Int(text) }
    return nil
  }

  public var doubleValue: Double? {
    if case .number(let text) = self { return Double(text) }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let elements) = self { return elements }
    return nil
  }

  public var objectValue: [(key: String, value: JSONValue)]? {
    if case .object(let members) = self { return members }
    return nil
  }

  public var isNull: Bool { self == .null }
}

/// What a parse may take: a bound on the text and on nesting, so that no input can make
/// the parser use unbounded memory or stack.
public struct JSONLimits: Sendable {
  /// Bytes of input; a longer text is refused before it is read.
  public var maximumLength: Int
  /// Arrays and objects inside one another, the outermost one counting 1.
  public var maximumDepth: Int

  public init(maximumLength: Int = 64 << 20, maximumDepth: Int = 64) {
    self.maximumLength = maximumLength
    self.maximumDepth = maximumDepth
  }
}

/// Why a text is not JSON (or not within the limits), and where.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The byte offset the problem was found at.
  public var offset: Int
  public var message: String

  public init(offset: Int, _ message: String) {
    self.offset = offset
    self.message = message
  }

  public var description: String { "\(message) at byte \(offset)" }
}

extension JSONValue {
  /// The one value `bytes` hold (with whitespace around it and nothing else), or why not.
  public static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits = JSONLimits()) -> Result<
    JSONValue, JSONError
  > {
    guard bytes.count <= limits.maximumLength else {
      return .failure(JSONError(offset: 0, "longer than \(limits.maximumLength) bytes"))
    }
    let contiguous = Array(bytes)
    return contiguous.withUnsafeBufferPointer { buffer in
      var parser = JSONParser(buffer, maximumDepth: limits.maximumDepth)
      return Result { () throws(JSONError) in try parser.document() }
    }
  }

  /// The value of `text`, or why not.
  public static func parse(_ text: String, limits: JSONLimits = JSONLimits()) -> Result<JSONValue, JSONError> {
    parse(Array(text.utf8), limits: limits)
  }
}
