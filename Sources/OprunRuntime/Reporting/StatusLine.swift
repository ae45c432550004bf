import OprunCore

/// The live line kept under the timeline on a terminal, as ninja's:
/// `[12/40] running: build, lint · 3.2s`, `[12/40] running: build · paused: lint ·
/// suspended: io · 3.2s`, `[12/40] nothing running · waiting for another oprun: gen · 0.4s`,
/// `[12/40] cancelling: build · 5.0s`. It holds what the line says — jobs finished, jobs
/// executing in the order they started, which of them are paused, the ready jobs that wait
/// for another run, the queues suspended, whether the run is being cancelled — and renders it
/// to fit the terminal's width; the reporter decides when it is drawn and erased.
struct StatusLine {
  /// Erases the line the cursor is on: back to its start, then clear to its end.
  static let erase = "\r\u{1B}[K"

  let total: Int
  private(set) var finished = 0
  /// Executing jobs, in the order they started.
  private(set) var running: [JobID] = []
  /// Executing jobs whose processes are stopped (`ctl pause`), in the order they were.
  private(set) var paused: [JobID] = []
  /// Ready jobs waiting for another oprun that runs them now, in the order they began to.
  private(set) var waiting: [JobID] = []
  /// Queues suspended now, in the order they were.
  private(set) var suspended: [QueueID] = []
  /// The run is being cancelled (Ctrl-C, SIGTERM): what executes is what it waits for.
  var isCancelling = false
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
    if transition.from == .ready { waiting.removeAll { $0 == transition.job } }
    if transition.from == .executing {
      running.removeAll { $0 == transition.job }
      paused.removeAll { $0 == transition.job }
    }
    if transition.to == .executing { running.append(transition.job) }
    if transition.to == .finished {
      finished += 1
      consoleJobs.remove(transition.job)
    } else if interactive && transition.to != .pending {
      consoleJobs.insert(transition.job)
    }
  }

  /// A job's processes were stopped (`paused`) or continued.
  mutating func recordPause(of job: JobID, paused isPaused: Bool) {
    paused.removeAll { $0 == job }
    if isPaused { paused.append(job) }
  }

  /// A ready job began to wait for another oprun; it stops when it leaves ready.
  mutating func recordWaiting(of job: JobID) {
    if !waiting.contains(job) { waiting.append(job) }
  }

  /// A queue was suspended or resumed.
  mutating func record(_ queue: QueueID, _ state: QueueState) {
    suspended.removeAll { $0 == queue }
    if state == .suspended { suspended.append(queue) }
  }

  /// The line at `elapsed` seconds, with each job's name from `name` and each queue's from
  /// `queueName`, cut to the width: names that do not fit are counted (`+3 more`), and a
  /// line narrower than its counter and time alone is cut at the last column.
  func text(
    elapsed: Double, style: TerminalStyle, name: (JobID) -> String, queueName: (QueueID) -> String = { "\($0)" }
  ) -> String {
    let counter = "[\(finished)/\(total)]"
    let time = " · " + Self.elapsedText(elapsed)
    let width = max(columns - 1, 1)
    let word = isCancelling ? " cancelling: " : " running: "
    // Names are made lazily: the line is drawn after every event, and only the names that
    // fit are ever shown, however many jobs run at once.
    var parts: [(label: String, ids: [Int], noun: String)] = []
    let active = paused.isEmpty ? running : running.filter { !paused.contains($0) }
    if !active.isEmpty || (paused.isEmpty && suspended.isEmpty) { parts.append((word, active, "job")) }
    if !paused.isEmpty { parts.append((" paused: ", paused, "job")) }
    if !waiting.isEmpty { parts.append((" waiting for another oprun: ", waiting, "job")) }
    if !suspended.isEmpty { parts.append((" suspended: ", suspended, "queue")) }
    // The room the names may take: what the counter, the words, the separators and the time leave.
    var room = width - counter.count - time.count
    for (index, part) in parts.enumerated() { room -= part.label.count + (index == 0 ? 0 : " ·".count) }
    var activity = ""
    for (index, part) in parts.enumerated() {
      let share = parts.count == 1 ? room : room / parts.count
      if index > 0 { activity += " ·" }
      if part.ids.isEmpty {
        activity += isCancelling ? " cancelling" : " nothing running"
      } else {
        let names = part.ids.lazy.map(part.noun == "queue" ? queueName : name)
        activity += part.label + Self.fitted(names, room: share, noun: part.noun)
      }
    }
    let plain = counter + activity + time
    guard plain.count > width else { return style.paint(counter, .bold) + activity + time }
    return String(plain.prefix(width))
  }

  /// Names joined with `, ` in at most `room` columns: those that do not fit are counted
  /// (`+3 more`), or all of them (`4 jobs`) when not even the first fits.
  private static func fitted(_ all: some Collection<String>, room: Int, noun: String) -> String {
    var names: [String] = []
    var used = 0
    for (index, shown) in all.enumerated() {
      let left = all.count - index - 1
      let more = left > 0 ? ", +\(left) more".count : 0
      let separator = names.isEmpty ? 0 : 2
      guard used + separator + shown.count + more <= room else {
        names.append(names.isEmpty ? counted(all.count, noun) : "+\(all.count - index) more")
        break
      }
      names.append(shown)
      used += separator + shown.count
    }
    return names.joined(separator: ", ")
  }

  /// Seconds with one decimal below a minute (`3.2s`), then as durations are (`2m03s`).
  static func elapsedText(_ seconds: Double) -> String {
    let seconds = seconds.isFinite ? max(seconds, 0) : 0
    return seconds < 59.95 ? DecimalText.string(seconds, fractionDigits: 1) + "s" : TimeText.duration(seconds)
  }
}
