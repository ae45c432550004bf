import OprunCore

extension JournalFolder {
  /// This manifest's journals as `--resume` starts reading them: the list, oldest first, the
  /// newest one read, and the warnings so far.
  public struct ResumeReading: Sendable {
    var entries: [Entry]
    var warnings: [String]
    /// The newest journal, read; nil when there is none.
    var newest: (entry: Entry, journal: Result<Journal, JournalError>)?
  }

  /// Lists the journals and reads the newest, which is all most resumes need.
  public func beginResumeReading() -> ResumeReading {
    var (entries, warnings) = entries()
    let newest = entries.popLast().map { ($0, read($0)) }
    return ResumeReading(entries: entries, warnings: warnings, newest: newest)
  }

  /// ``beginResumeReading()`` on a hashing thread, so that reading a large journal costs no
  /// time while the manifest is loaded; the value is there once it is read.
  func beginResumeReadingInBackground() -> PendingValue<ResumeReading> {
    PendingValue(on: HashingPool.shared) { self.beginResumeReading() }
  }

  /// `--resume`'s plan for `graph` against this manifest's journals, newest first (`reading`
  /// has listed them and read the newest), and a warning for each journal or line that could
  /// not be read (the jobs they recorded run).
  public func resumePlan(
    for graph: JobGraph, fingerprints: [JobFingerprint], reading: ResumeReading
  ) -> (plan: ResumePlan, warnings: [String]) {
    var reading = reading
    var warnings = reading.warnings
    var someLinesUnread = false
    let history = JournalHistory.lastRecords(for: graph) {
      while let (entry, result) = reading.newest ?? reading.entries.popLast().map({ ($0, read($0)) }) {
        reading.newest = nil
        switch result {
        case .failure(let error):
          warnings.append("cannot read the journal \(error.message); ignored")
        case .success(let journal):
          if let warning = Self.warning(about: journal, in: entry.file) { warnings.append(warning) }
          if !journal.problems.isEmpty || journal.isFromNewerFormat { someLinesUnread = true }
          return journal
        }
      }
      return nil
    }
    guard let history else {
      warnings.append("--resume: no journal of an earlier run of \(manifestName) in \(path): every job runs")
      return (ResumePlan(graph: graph, fingerprints: fingerprints, records: nil, journalRun: nil), warnings)
    }
    let plan = ResumePlan(
      graph: graph, fingerprints: fingerprints, records: history.records, journalRun: history.run,
      someLinesUnread: someLinesUnread)
    return (plan, warnings)
  }
}
