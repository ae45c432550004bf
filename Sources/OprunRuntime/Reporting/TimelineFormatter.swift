import OprunCore

/// Formats the human view's timeline: one aligned line per thing that happened,
///
///     "  1.500s  finished    test    failed (exit 2) in 0.30s"
///
/// the time since start (right-aligned), a word for what happened, the job or queue it
/// happened to (padded to the longest job name, at most 24), and details.
struct TimelineFormatter {
  let style: TerminalStyle
  let verbosity: HumanOptions.Verbosity
  let nameWidth: Int

  static let timeWidth = 8
  static let wordWidth = 10
  static let maximumNameWidth = 24

  init(graph: JobGraph, options: HumanOptions) {
    style = TerminalStyle(isEnabled: options.color)
    verbosity = options.verbosity
    let longest = graph.jobs.indices.map { graph.reportedName(job: $0).count }.max() ?? 1
    nameWidth = min(max(longest, 1), Self.maximumNameWidth)
  }

  /// One timeline line, ending in a newline; `detail` is already styled.
  func line(at time: Double, _ word: String, _ name: String, _ detail: String = "") -> String {
    let timeText = padLeft(TimeText.timestamp(time), Self.timeWidth)
    var text = style.paint(timeText, .dim) + "  " + padRight(word, Self.wordWidth) + "  "
    text += detail.isEmpty ? name : padRight(name, nameWidth) + "  " + detail
    return text + "\n"
  }

  /// `pid 4242` or `pids 4242 4243`, then the attempt when it is not the first (always when verbose).
  func executingDetail(_ transition: Transition, queueName: String, commands: [String]) -> String {
    var parts: [String] = []
    if !transition.pids.isEmpty {
      let label = plural("pid", count: transition.pids.count)
      parts.append(label + " " + transition.pids.map(String.init).joined(separator: " "))
    }
    if transition.attempt > 1 || verbosity == .verbose { parts.append("attempt \(transition.attempt)") }
    if verbosity == .verbose {
      parts.append("queue " + queueName)
      parts.append("exec " + Self.execWays(of: commands))
    }
    return parts.joined(separator: " · ")
  }

  /// How each command runs, in the order of the pids: `direct` (its own program, found on
  /// `PATH`) or `sh -c` (``DirectCommand``).
  static func execWays(of commands: [String]) -> String {
    commands.map { DirectCommand.arguments(of: $0) == nil ? "sh -c" : "direct" }.joined(separator: ", ")
  }

  /// `succeeded in 1.21s`, `failed (exit 2) in 0.30s`, `timed out after 5.00s`,
  /// `cancelled (interrupt)`, `skipped`; the outcome coloured.
  func outcomeDetail(_ result: RunSummary.JobResult) -> String {
    let (phrase, timing) = outcomePhrase(result)
    var detail = style.paint(phrase, TerminalStyle.colour(of: result.outcome)) + timing
    if result.attempt > 1 || (verbosity == .verbose && result.executed) { detail += " · attempt \(result.attempt)" }
    return detail
  }

  /// How a process ended: `exit 2`, `signal SIGSEGV`.
  static func terminationText(_ termination: Termination) -> String {
    switch termination {
    case .exited(let code): "exit \(code)"
    case .signalled(let signal): "signal " + SignalName.of(signal)
    case .notStarted: "not started"
    }
  }

  /// `out of memory: 2.0 GB limit`, for an attempt the kernel killed for passing its limit.
  static func outOfMemoryText(limit: Int) -> String {
    "out of memory: \(MemoryText.text(bytes: limit)) limit"
  }

  /// `missing outputs a, b`, for a job whose commands succeeded but left these out.
  static func missingOutputsText(_ paths: [String]) -> String {
    plural("missing output", count: paths.count) + " " + paths.map { DisplayText.escaped($0) }.joined(separator: ", ")
  }

  private func outcomePhrase(_ result: RunSummary.JobResult) -> (String, String) {
    let duration = TimeText.duration(result.duration)
    switch result.outcome {
    case .succeeded:
      if result.upToDate { return ("up to date", "") }
      if let saved = result.savedByCache { return ("restored from cache (saves \(TimeText.duration(saved)))", "") }
      return result.resumed ? ("succeeded (resumed)", "") : ("succeeded", " in " + duration)
    case .failed:
      var cause = result.termination.map { " (" + Self.terminationText($0) + ")" } ?? ""
      if let limit = result.outOfMemoryLimit { cause = " (" + Self.outOfMemoryText(limit: limit) + ")" }
      if !result.missingOutputs.isEmpty {
        cause =
          " (" + (result.termination.map { Self.terminationText($0) + ", " } ?? "")
          + Self.missingOutputsText(result.missingOutputs) + ")"
      }
      return ("failed" + cause, result.termination?.startFailure == nil ? " in " + duration : "")
    case .timedOut:
      return ("timed out", " after " + duration)
    case .cancelled:
      let reason = result.cancelReason.map { " (" + $0.rawValue + ")" } ?? ""
      return ("cancelled" + reason, result.executed ? " after " + duration : "")
    case .skipped:
      return ("skipped", "")
    }
  }

  private func padLeft(_ text: String, _ width: Int) -> String {
    let missing = width - text.count
    return missing > 0 ? String(repeating: " ", count: missing) + text : text
  }

  private func padRight(_ text: String, _ width: Int) -> String {
    let missing = width - text.count
    return missing > 0 ? text + String(repeating: " ", count: missing) : text
  }
}
