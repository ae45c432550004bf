import Glibc
import OprunCore

/// The line a terminal shows between cycles of `--watch` (SPEC §13): what is watched and how
/// the last cycle ended, `watching 1,204 files · last: 3 succeeded (1 up to date) · 12s ago`,
/// drawn again every second so that its age stays true, and erased before anything else is
/// written.
struct WatchStatusLine {
  /// The terminal the human lines go to.
  let terminal: Int32
  /// Whether the line is on the screen now.
  private(set) var isShown = false

  /// The line for `files` watched and the last cycle's `summary`, ended `age` seconds ago,
  /// cut to the terminal's width.
  static func text(files: Int, last summary: RunSummary?, age: Double, columns: Int) -> String {
    var parts = ["watching " + counted(files, "file")]
    if let summary {
      let outcomes = HumanReporter.outcomeTexts(of: summary).map(\.text)
      parts.append("last: " + (outcomes.isEmpty ? "no jobs" : outcomes.joined(separator: ", ")))
      parts.append(StatusLine.elapsedText(age) + " ago")
    }
    parts.append("Ctrl-C ends")
    return String(parts.joined(separator: " · ").prefix(max(columns - 1, 1)))
  }

  mutating func draw(_ text: String) {
    write(StatusLine.erase + text)
    isShown = true
  }

  mutating func erase() {
    guard isShown else { return }
    write(StatusLine.erase)
    isShown = false
  }

  private func write(_ text: String) {
    RunCommandLine.writeAll(terminal, text)
  }
}
