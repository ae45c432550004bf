/// Text from a manifest (a job's name, a key, a value) as oprun shows it to a person: what
/// a terminal would act on instead of showing (control characters, line and paragraph
/// separators, bidirectional overrides) is written as the escape a YAML double-quoted
/// string uses for it (`\n`, `\e`, `\x7F`, `\u202E`), so a name can neither break a line
/// nor move the cursor, and can be copied back into the manifest. Machine-readable output
/// (JSON) keeps the real text.
public enum DisplayText {
  public static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var shown = ""
    shown.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if needsEscape(scalar) { shown += escape(scalar) } else { shown.unicodeScalars.append(scalar) }
    }
    return shown
  }

  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: true
    case 0x2028, 0x2029: true  // line and paragraph separators: YAML line breaks
    case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional controls
    default: false
    }
  }

  private static func escape(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0x00: return "\\0"
    case 0x07: return "\\a"
    case 0x08: return "\\b"
    case 0x09: return "\\t"
    case 0x0A: return "\\n"
    case 0x0B: return "\\v"
    case 0x0C: return "\\f"
    case 0x0D: return "\\r"
    case 0x1B: return "\\e"
    case 0x85: return "\\N"
    case let value where value <= 0xFF: return "\\x" + hex(value, digits: 2)
    case let value: return "\\u" + hex(value, digits: 4)
    }
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}
