extension Outcome {
  /// The outcome as people read it: `timed out` for `timed-out`, the others as they are.
  public var word: String {
    self == .timedOut ? "timed out" : rawValue
  }

  /// The order in which summaries count outcomes: success, then failures, then the jobs
  /// that did not run to the end.
  public static let summaryOrder: [Outcome] = [.succeeded, .failed, .timedOut, .cancelled, .skipped]

  /// `3 succeeded`, `1 timed out`: each outcome `counts` has more than none of, in
  /// ``summaryOrder``.
  public static func countTexts(_ counts: [Outcome: Int]) -> [(outcome: Outcome, text: String)] {
    summaryOrder.compactMap { outcome in
      let count = counts[outcome] ?? 0
      return count > 0 ? (outcome, "\(count) " + outcome.word) : nil
    }
  }
}
