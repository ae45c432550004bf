import OprunCore

extension JournalFolder {
  /// Who reads a journal, which decides what becomes of what could not be read.
  enum Reader {
    /// `--resume`: the jobs the unread lines recorded run again.
    case resume
    /// `oprun log`: the rest of the journal is shown.
    case log
  }

  /// One warning for what could not be read in `journal`, or nil when everything could.
  static func warning(about journal: Journal, in file: String, for reader: Reader = .resume) -> String? {
    if journal.isFromNewerFormat {
      let consequence = reader == .resume ? "the jobs it recorded run again" : "its job lines are not shown"
      return "\(file) was written by a newer oprun (journal format \(journal.header?.format ?? 0)): " + consequence
    }
    let newer =
      journal.isFromNewerOprun ? "\(file) was written by a newer oprun (\(journal.header?.oprun ?? "")): " : nil
    guard let first = journal.problems.first else {
      return newer.map {
        $0 + (reader == .resume ? "what it recorded is read as this oprun understands it" : "shown as read")
      }
    }
    let count = journal.problemCount
    let consequence =
      reader == .resume ? "any job \(count == 1 ? "it" : "they") recorded runs again" : "the rest is shown"
    return (newer ?? "\(file): ") + "skipped \(counted(count, "line")) that could not be read (line \(first.line): "
      + "\(first.message)); " + consequence
  }
}
