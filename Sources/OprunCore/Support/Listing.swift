/// How oprun's messages list names: all of them when there are few, else the first few and
/// how many more, so that a message about a manifest of 100,000 jobs stays one line.
public enum Listing {
  /// `a, b or c` (or `and`); each name in single quotes with `quoted`.
  public static func words(_ words: [String], quoted: Bool = false, conjunction: String = "or") -> String {
    let shown = quoted ? words.map { "'\($0)'" } : words
    guard shown.count > 1 else { return shown.first ?? "" }
    return shown.dropLast().joined(separator: ", ") + " \(conjunction) " + shown.last!
  }

  /// `a, b and c` when there are at most `limit` names; else the first `limit` and how many
  /// more: `a, b, c and 12 more`.
  public static func bounded(_ names: some Collection<String>, limit: Int, quoted: Bool = false) -> String {
    guard names.count > limit else { return words(Array(names), quoted: quoted, conjunction: "and") }
    let shown = names.prefix(limit).map { quoted ? "'\($0)'" : $0 }
    return shown.joined(separator: ", ") + " and \(names.count - limit) more"
  }
}
