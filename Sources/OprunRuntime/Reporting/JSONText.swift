/// JSON string escaping.
public enum JSONText {
  /// Appends `text` as a JSON string literal: quotes, backslashes and control characters
  /// escaped, everything else as UTF-8.
  public static func appendString(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
        bytes.append(byte)
      } else {
        appendEscape(byte, to: &bytes)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// `text` as a JSON string literal.
  public static func string(_ text: String) -> String {
    var bytes: [UInt8] = []
    appendString(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func appendEscape(_ byte: UInt8, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\\"))
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
    case 0x0A: bytes.append(UInt8(ascii: "n"))
    case 0x0D: bytes.append(UInt8(ascii: "r"))
    case 0x09: bytes.append(UInt8(ascii: "t"))
    case 0x08: bytes.append(UInt8(ascii: "b"))
    case 0x0C: bytes.append(UInt8(ascii: "f"))
    default:
      let hex = Array("0123456789abcdef".utf8)
      bytes.append(contentsOf: "u00".utf8)
      bytes.append(hex[Int(byte >> 4)])
      bytes.append(hex[Int(byte & 0xF)])
    }
  }
}
