/// "Did you mean …?": the closest known name to a misspelt one.
public enum Suggestion {
  /// The candidate closest to `word` by edit distance (ignoring case, a transposition costs
  /// one), if it is close enough to be a plausible typo: one edit per three characters,
  /// rounded to nearest, so a one-letter name only matches a change of case. Ties go to the
  /// earlier candidate.
  public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
    let target = Array(word.lowercased().unicodeScalars)
    let limit = (target.count + 1) / 3
    var best: (name: String, distance: Int)?
    for candidate in candidates {
      let scalars = Array(candidate.lowercased().unicodeScalars)
      guard abs(scalars.count - target.count) <= limit else { continue }
      let distance = editDistance(target, scalars)
      if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.name
  }

  /// `" (did you mean 'name'?)"`: how every misspelt name is answered, to follow the message.
  public static func didYouMean(_ name: String) -> String {
    " (did you mean '\(name)'?)"
  }

  /// Optimal string alignment distance: insertions, deletions, substitutions and
  /// transpositions of neighbours each cost one.
  static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previousRow = [Int](repeating: 0, count: b.count + 1)
    var row = Array(0...b.count)
    var nextRow = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      nextRow[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var distance = min(row[j] + 1, nextRow[j - 1] + 1, row[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          distance = min(distance, previousRow[j - 2] + 1)
        }
        nextRow[j] = distance
      }
      (previousRow, row, nextRow) = (row, nextRow, previousRow)
    }
    return row[b.count]
  }
}
