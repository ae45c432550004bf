/// How oprun writes an amount of memory for people: in powers of 1024, as sizes are given
/// (`512M`, `2G`), with one decimal below ten of a unit — `812 KB`, `100 MB`, `1.1 GB`,
/// `5.2 GB`. The one formatter of sizes: budgets, limits and peaks all read alike.
public enum MemoryText {
  private static let units = ["B", "KB", "MB", "GB", "TB", "PB"]

  /// `bytes` for reading; a negative amount reads as `0 B`.
  public static func text(bytes: Int) -> String {
    let bytes = max(bytes, 0)
    var unit = 0
    var scale = 1
    while unit + 1 < units.count, bytes / scale >= 1024 { (unit, scale) = (unit + 1, scale * 1024) }
    guard unit > 0 else { return "\(bytes) B" }
    // In tenths of the unit, rounded half up, by integers (no float formatting), without overflow.
    let tenths = bytes / scale * 10 + (bytes % scale * 10 + scale / 2) / scale
    if tenths >= 100 {
      let whole = bytes / scale + (bytes % scale + scale / 2) / scale
      // 1023.6 MB reads 1.0 GB, not 1024 MB.
      if whole >= 1024, unit + 1 < units.count { return "1.0 \(units[unit + 1])" }
      return "\(whole) \(units[unit])"
    }
    return "\(tenths / 10).\(tenths % 10) \(units[unit])"
  }
}
