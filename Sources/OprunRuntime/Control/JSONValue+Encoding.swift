import OprunCore

extension JSONValue {
  /// The value as compact JSON: members in their order, numbers as they were written,
  /// strings escaped as oprun's own writers escape them.
  public var encoded: [UInt8] {
    var bytes: [UInt8] = []
    append(to: &bytes)
    return bytes
  }

  private func append(to bytes: inout [UInt8]) {
    switch self {
    case .null: bytes.append(contentsOf: "null".utf8)
    case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
    case .number(let text): bytes.append(contentsOf: text.utf8)
    case .string(let text): JSONText.appendString(text, to: &bytes)
    case .array(let elements):
      bytes.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        element.append(to: &bytes)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        JSONText.appendString(member.key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        member.value.append(to: &bytes)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }
}
