import OprunCore

extension JournalFolder {
  /// The newest record that stands (``JournalRecord/started``) of each job named, across this
  /// manifest's journals, newest first, from any run, a targeted one included (SPEC §10); and
  /// a warning for each journal that could not be read. Older journals are read only while
  /// some job has none yet.
  public func newestRecords(of names: Set<String>) -> (records: [String: JournalRecord], warnings: [String]) {
    var (entries, warnings) = entries()
    var records: [String: JournalRecord] = [:]
    while records.count < names.count, let entry = entries.popLast() {
      switch read(entry) {
      case .failure(let error):
        warnings.append("cannot read the journal \(error.message); ignored")
      case .success(let journal):
        if let warning = Self.warning(about: journal, in: entry.file) { warnings.append(warning) }
        for record in journal.records.reversed()
        where record.started && records[record.job] == nil && names.contains(record.job) {
          records[record.job] = record
        }
      }
    }
    return (records, warnings)
  }
}
