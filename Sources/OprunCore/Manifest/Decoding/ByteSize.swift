/// Sizes as a manifest, `--budget` and `ctl budget` write them (SPEC §12): a number of bytes,
/// or a number with `K`, `M`, `G` or `T` (powers of 1024, as `free -h` and Slurm's `--mem`
/// mean them), `1.5G` included. The IEC spellings `Ki`, `Mi`, `Gi`, `Ti` mean the same.
/// `MB`, `GB` and the like are refused: half the world reads them as powers of 1000.
public enum ByteSize {
  /// The forms that work, for a message about one that does not.
  public static let forms = "a size like 512M, 2G, 1.5G or a number of bytes"

  /// Bytes, or nil when `text` is no size or not a positive whole number of bytes.
  public static func bytes(_ text: String) -> Int? {
    var digits = Substring(text)
    var scale = 1
    if let last = digits.last, last == "i" {
      digits = digits.dropLast()
      guard let unit = digits.last, let power = power(of: unit) else { return nil }
      scale = power
      digits = digits.dropLast()
    } else if let last = digits.last, let power = power(of: last) {
      scale = power
      digits = digits.dropLast()
    }
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
    if let whole = Int(digits) {
      let (bytes, overflow) = whole.multipliedReportingOverflow(by: scale)
      return overflow || bytes < 1 ? nil : bytes
    }
    // A fraction of a unit: 1.5G. A fraction of a byte is not a size.
    guard scale > 1, let value = Double(digits), value.isFinite else { return nil }
    let bytes = (value * Double(scale)).rounded(.down)
    guard bytes >= 1, bytes < Double(Int.max / 2) else { return nil }
    return Int(bytes)
  }

  private static func power(of unit: Character) -> Int? {
    switch unit {
    case "K", "k": 1 << 10
    case "M", "m": 1 << 20
    case "G", "g": 1 << 30
    case "T", "t": 1 << 40
    default: nil
    }
  }

  /// `2G`, `1536M`, `100`: the shortest whole number of a unit that is exactly `bytes`, as
  /// `--budget` and Slurm's `--mem` read it.
  public static func written(_ bytes: Int) -> String {
    for (size, suffix) in [(1 << 40, "T"), (1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")] where bytes % size == 0 {
      return "\(bytes / size)\(suffix)"
    }
    return "\(bytes)"
  }
}
