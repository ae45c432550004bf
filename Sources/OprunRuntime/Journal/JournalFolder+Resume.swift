import OprunCore

extension JournalFolder {
  /// `--resume`'s plan for `graph` against this manifest's journals, newest first, and a
  /// warning for each journal or line that could not be read (the jobs they recorded run).
  public func resumePlan(for graph: JobGraph, fingerprints: [JobFingerprint]) -> (plan: ResumePlan, warnings: [String])
  {
    var (entries, warnings) = entries()
    var someLinesUnread = false
    let history = JournalHistory.lastRecords(for: graph) {
      while let entry = entries.popLast() {
        switch read(entry) {
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
