/// Builds one JSON object as bytes, keys in the order they are added.
///
/// Made for writing events quickly: no intermediate dictionaries, no Foundation. The caller
/// supplies keys that need no escaping (the event schema's own names).
public struct JSONObjectWriter: Sendable {
  /// The object written so far; complete after ``close(newline:)``.
  public private(set) var bytes: [UInt8]
  private var isEmpty = true

  /// Starts an empty object.
  public init() {
    bytes = [UInt8(ascii: "{")]
  }

  /// Starts a new, empty object in the same storage, so that writing many objects one
  /// after the other allocates nothing once the storage is large enough.
  public mutating func reset() {
    bytes.removeAll(keepingCapacity: true)
    bytes.append(UInt8(ascii: "{"))
    isEmpty = true
  }

  /// The members written so far, without the braces: what an answer of the control channel
  /// carries (``ControlAnswer/data``). Valid until ``close(newline:)``.
  public var members: [UInt8] { Array(bytes.dropFirst()) }

  /// Ends the object, and with `newline`, the line it is on.
  public mutating func close(newline: Bool = false) {
    bytes.append(UInt8(ascii: "}"))
    if newline { bytes.append(UInt8(ascii: "\n")) }
  }

  /// A string member.
  public mutating func field(_ key: StaticString, _ value: String) {
    appendKey(key)
    JSONText.appendString(value, to: &bytes)
  }

  /// A string or, for nil, `null`.
  public mutating func field(_ key: StaticString, _ value: String?) {
    appendKey(key)
    if let value { JSONText.appendString(value, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
  }

  /// An integer member.
  public mutating func field(_ key: StaticString, _ value: Int) {
    appendKey(key)
    DecimalText.append(value, to: &bytes)
  }

  /// A number or, for nil, `null`.
  public mutating func field(_ key: StaticString, _ value: Int?) {
    appendKey(key)
    if let value { DecimalText.append(value, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
  }

  /// A number with up to `fractionDigits` decimals, trailing zeros dropped.
  public mutating func field(_ key: StaticString, _ value: Double, fractionDigits: Int = 6) {
    appendKey(key)
    DecimalText.append(value, fractionDigits: fractionDigits, trimmingZeros: true, to: &bytes)
  }

  /// A `true` or `false` member.
  public mutating func field(_ key: StaticString, _ value: Bool) {
    appendKey(key)
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  /// An array of integers.
  public mutating func field(_ key: StaticString, _ values: [Int]) {
    appendArray(key, values) { DecimalText.append($0, to: &$1) }
  }

  /// An array of strings.
  public mutating func field(_ key: StaticString, _ values: [String]) {
    appendArray(key, values) { JSONText.appendString($0, to: &$1) }
  }

  /// `"key":[e1,e2,…]`, each element written by `appendElement`.
  private mutating func appendArray<Element>(
    _ key: StaticString, _ values: [Element], _ appendElement: (Element, inout [UInt8]) -> Void
  ) {
    appendKey(key)
    bytes.append(UInt8(ascii: "["))
    for (index, value) in values.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      appendElement(value, &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  /// A nested object whose members are written by `body`.
  public mutating func field(_ key: StaticString, object body: (inout JSONObjectWriter) -> Void) {
    appendKey(key)
    var nested = JSONObjectWriter()
    body(&nested)
    nested.close()
    bytes.append(contentsOf: nested.bytes)
  }

  /// An array of objects, one per item, each written by `body` straight into this object's
  /// storage: a list of ten thousand costs no more than its bytes.
  public mutating func field<Items: Sequence>(
    _ key: StaticString, objects items: Items, _ body: (Items.Element, inout JSONObjectWriter) -> Void
  ) {
    appendKey(key)
    bytes.append(UInt8(ascii: "["))
    var isFirst = true
    for item in items {
      if !isFirst { bytes.append(UInt8(ascii: ",")) }
      isFirst = false
      var element = JSONObjectWriter(continuing: &bytes)
      body(item, &element)
      element.close()
      swap(&bytes, &element.bytes)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  /// An object that continues `storage`, which it takes until it is swapped back.
  private init(continuing storage: inout [UInt8]) {
    bytes = []
    swap(&bytes, &storage)
    bytes.append(UInt8(ascii: "{"))
  }

  /// A string member whose key is data (a matrix axis).
  public mutating func field(named key: String, _ value: String) {
    separate()
    JSONText.appendString(key, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    JSONText.appendString(value, to: &bytes)
  }

  /// A member whose key is data (a queue's name, an outcome).
  public mutating func field(named key: String, _ value: Int) {
    separate()
    JSONText.appendString(key, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    DecimalText.append(value, to: &bytes)
  }

  /// A string member: `value` as 16 lower-case hex digits (a fingerprint), written without
  /// making a string first.
  public mutating func field(_ key: StaticString, hex value: UInt64) {
    appendKey(key)
    appendHex(value)
  }

  /// A string member of 16 hex digits whose key is data.
  public mutating func field(named key: String, hex value: UInt64) {
    separate()
    JSONText.appendString(key, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    appendHex(value)
  }

  private mutating func appendHex(_ value: UInt64) {
    bytes.append(UInt8(ascii: "\""))
    for shift in stride(from: 60, through: 0, by: -4) {
      let digit = UInt8((value >> UInt64(shift)) & 0xF)
      bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func appendKey(_ key: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    key.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: "\":".utf8)
  }

  private mutating func separate() {
    if isEmpty { isEmpty = false } else { bytes.append(UInt8(ascii: ",")) }
  }
}
