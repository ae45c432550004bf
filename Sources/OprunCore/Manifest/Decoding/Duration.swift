/// Durations as a manifest writes them: `500ms`, `30s`, `5m`, `1h30m`, `1.5h`, or a bare
/// number of seconds.
enum Duration {
  /// Seconds, or nil if `text` is not a duration.
  static func seconds(_ text: String) -> Double? {
    if let bare = Double(text), bare.isFinite, !text.contains(where: \.isLetter) { return bare }
    var total = 0.0
    var rest = Substring(text)
    guard !rest.isEmpty else { return nil }
    while !rest.isEmpty {
      let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
      rest = rest.dropFirst(number.count)
      let unit = rest.prefix { $0.isASCII && $0.isLetter }
      rest = rest.dropFirst(unit.count)
      guard let value = Double(number), let scale = scale(of: unit) else { return nil }
      total += value * scale
    }
    return total
  }

  private static func scale(of unit: Substring) -> Double? {
    switch unit {
    case "ms": 0.001
    case "s": 1
    case "m": 60
    case "h": 3600
    default: nil
    }
  }
}
