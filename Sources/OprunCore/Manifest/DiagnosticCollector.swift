/// Collects a manifest's problems while keeping only the ones that will be shown: the first
/// ``shownLimit`` in reading order (without a place first, then by line and column; ties
/// keep the order found). The rest are only counted, so a manifest with a million bad jobs
/// costs a million counts, not a million messages.
struct DiagnosticCollector {
  static let shownLimit = 100

  /// Candidates for the shown ones with the order each was found in; trimmed back to
  /// ``shownLimit`` whenever it reaches twice that, so appending stays amortised O(log n).
  private var kept: [(diagnostic: Diagnostic, order: Int)] = []
  private var found = 0
  private(set) var omittedCount = 0
  private(set) var errorCount = 0

  var containsErrors: Bool { errorCount > 0 }

  var isEmpty: Bool { found == 0 }

  mutating func append(_ diagnostic: Diagnostic) {
    kept.append((diagnostic, found))
    found += 1
    if diagnostic.severity == .error { errorCount += 1 }
    if kept.count >= 2 * Self.shownLimit { trim() }
  }

  static func += (collector: inout DiagnosticCollector, diagnostics: [Diagnostic]) {
    for diagnostic in diagnostics { collector.append(diagnostic) }
  }

  /// The shown problems in reading order, and how many more there were.
  func errors() -> ManifestErrors {
    var collector = self
    collector.trim()
    return ManifestErrors(collector.kept.map(\.diagnostic), omittedCount: collector.omittedCount)
  }

  private mutating func trim() {
    kept.sort { Self.readingKey($0) < Self.readingKey($1) }
    if kept.count > Self.shownLimit {
      omittedCount += kept.count - Self.shownLimit
      kept.removeSubrange(Self.shownLimit...)
    }
  }

  private static func readingKey(_ entry: (diagnostic: Diagnostic, order: Int)) -> (Int, Int, Int) {
    (entry.diagnostic.location?.line ?? 0, entry.diagnostic.location?.column ?? 0, entry.order)
  }
}
