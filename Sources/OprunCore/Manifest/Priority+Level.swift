extension Priority {
  /// A priority as `oprun ctl priority JOB LEVEL` takes it: the manifest's word (`high`) or
  /// its number (`4`).
  public init?(level: String) {
    guard let priority = Priority(word: level) ?? Int(level).flatMap(Priority.init(rawValue:)) else { return nil }
    self = priority
  }

  /// Why `level` is no priority, as a user can act on it: the closest word, then every word
  /// and number. The same text whether `oprun ctl` or the run finds it.
  public static func unknownLevel(_ level: String) -> String {
    let words = allCases.map(\.word)
    let hint = Suggestion.closest(to: level, among: words).map(Suggestion.didYouMean) ?? ""
    let numbers = allCases.map { String($0.rawValue) }.joined(separator: ", ")
    return "unknown priority '\(level)'\(hint); expected \(Listing.words(words)) (or \(numbers))"
  }
}
