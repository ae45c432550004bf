import OprunCore

/// The live line kept under the timeline on a terminal, as ninja's:
/// `[12/40] running: build, lint · 3.2s`. It holds what the line says — jobs finished, jobs
/// executing in the order they started — and renders it to fit the terminal's width; the
/// reporter decides when it is drawn and erased.
struct StatusLine {
  /// Erases the line the cursor is on: back to its start, then clear to its end.
  static let erase = "\r\u{1B}[K"

  let total: Int
  private(set) var finished = 0
  /// Executing jobs, in the order they started.
  private(set) var running: [JobID] = []
  /// The terminal's width in columns; the line is kept one short of it, so that writing the
  /// last column never wraps the cursor onto a new line.
  var columns: Int
  /// Whether the line is on the screen now (drawn and not yet erased).
  var isShown = false

  init(total: Int, columns: Int) {
    self.total = total
    self.columns = columns
  }

  /// Interactive jobs that are ready or executing: one may be writing to the terminal itself
  /// (it can start before its `executing` event is seen), so the line is not drawn meanwhile.
  private(set) var consoleJobs: Set<JobID> = []

  /// Takes a transition into account: a job that starts executing joins `running`; one that
  /// leaves executing (finished, or back to ready for a retry) leaves it.
  mutating func record(_ transition: Transition, interactive: Bool) {
    if transition.from == .executing { running.removeAll { $0 == transition.job } }
    if transition.to == .executing { running.append(transition.job) }
    if transition.to == .finished {
      finished += 1
      consoleJobs.remove(transition.job)
    } else if interactive && transition.to != .pending {
      consoleJobs.insert(transition.job)
    }
  }

  /// The line at `elapsed` seconds, with each job's name from `name`, cut to the width:
  /// names that do not fit are counted (`+3 more`), and a line narrower than its counter
  /// and time alone is cut at the last column.
  func text(elapsed: Double, style: TerminalStyle, name: (JobID) -> String) -> String {
    let counter = "[\(finished)/\(total)]"
    let time = " · " + Self.elapsedText(elapsed)
    let width = max(columns - 1, 1)
    var names: [String] = []
    // The room the names may take: what the counter, the words and the time leave.
    let room = width - counter.count - " running: ".count - time.count
    var used = 0
    for (index, job) in running.enumerated() {
      let shown = name(job)
      let left = running.count - index - 1
      let more = left > 0 ? ", +\(left) more".count : 0
      let separator = names.isEmpty ? 0 : 2
      guard used + separator + shown.count + more <= room else {
        names.append(names.isEmpty ? counted(running.count, "job") : "+\(running.count - index) more")
        break
      }
      names.append(shown)
      used += separator + shown.count
    }
    let activity = running.isEmpty ? " nothing running" : " running: " + names.joined(separator: ", ")
    let plain = counter + activity + time
    guard plain.count > width else { return style.paint(counter, .bold) + activity + time }
    return String(plain.prefix(width))
  }

  /// Seconds with one decimal below a minute (`3.2s`), then as durations are (`2m03s`).
  static func elapsedText(_ seconds: Double) -> String {
    let seconds = seconds.isFinite ? max(seconds, 0) : 0
    return seconds < 59.95 ? DecimalText.string(seconds, fractionDigits: 1) + "s" : TimeText.duration(seconds)
  }
}
