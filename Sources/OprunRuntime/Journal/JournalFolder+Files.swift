import OprunCore

extension JournalFolder {
  /// The newest record that stands (``JournalRecord/started``) of each job named, across this
  /// manifest's journals, newest first, from any run, a targeted one included (SPEC §10); and
  /// a warning for each journal that could not be read. Older journals are read only while
  /// some job has none yet. A job that a line that could not be read names (every job, when
  /// the line names none that can be told), and that the same journal records nowhere else,
  /// has none: a run writes one line per job, so that line may have been its newest record,
  /// and an older one does not stand for it; it runs (SPEC §9).
  public func newestRecords(of names: Set<String>) -> (records: [String: JournalRecord], warnings: [String]) {
    var (entries, warnings) = entries()
    var records: [String: JournalRecord] = [:]
    var lost = Set<String>()
    while records.count + lost.count < names.count, let entry = entries.popLast() {
      switch read(entry) {
      case .failure(let error):
        warnings.append("cannot read the journal \(error.message); ignored")
      case .success(let journal):
        if let warning = Self.warning(about: journal, in: entry.file) { warnings.append(warning) }
        if journal.hasUnreadableLineOfUnknownJob || !journal.jobsOfUnreadableLines.isEmpty {
          let recordedHere = Set(journal.records.map(\.job))
          for name in names where records[name] == nil && !recordedHere.contains(name) {
            if journal.hasUnreadableLineOfUnknownJob || journal.jobsOfUnreadableLines.contains(name) { lost.insert(name) }
          }
        }
        for record in journal.records.reversed()
        where record.started && records[record.job] == nil && !lost.contains(record.job) && names.contains(record.job) {
          records[record.job] = record
        }
      }
    }
    return (records, warnings)
  }
}
