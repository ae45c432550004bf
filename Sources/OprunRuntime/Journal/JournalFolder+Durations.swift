import OprunCore

extension JournalFolder {
  /// How long each job of this manifest took, in every kept journal of it that can be read
  /// (``PastDurations``): the weights of `--schedule critical-path`.
  ///
  /// What cannot be read is passed over without a warning: it changes no job's outcome,
  /// only leaves its weight unknown, and `-n` shows which weights are.
  public func pastDurations() -> PastDurations {
    var durations = PastDurations()
    for entry in entries().entries {
      if case .success(let journal) = read(entry) { durations.add(journal) }
    }
    return durations
  }
}
