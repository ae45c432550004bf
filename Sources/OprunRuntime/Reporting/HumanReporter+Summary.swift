import OprunCore

/// The summary printed when the run finishes: each failure with its last lines of output,
/// the slowest jobs, the heaviest, then one line of counts, wall time and exit status (or, when every job
/// was up to date, one line that says there was nothing to do), which ends the human output
/// so that it is what a terminal shows last.
extension HumanReporter {
  static let slowestShown = 5

  /// How many jobs a line of consequences names before it counts the rest.
  static let consequencesNamed = 10

  func showSummary() {
    closeRawLine()
    let failures = summary.failures
    let consequences = failures.isEmpty ? [:] : summary.consequences(in: graph)
    for failure in failures {
      showFailure(failure)
      for consequence in consequences[failure.job] ?? [] { showConsequence(consequence, of: failure) }
    }
    if options.verbosity >= .normal {
      showSlowest()
      showHeaviest()
    }
    out.write((nothingToDoLine() ?? countsLine()) + "\n")
  }

  /// `── nothing to do: 5 jobs up to date`, in place of the counts when no job of the run had
  /// to run (as ninja says "no work to do"); nil otherwise.
  func nothingToDoLine() -> String? {
    guard summary.jobCount > 0, summary.upToDateCount == summary.jobCount else { return nil }
    let jobs = style.paint(counted(summary.jobCount, "job") + " up to date", TerminalStyle.colour(of: .succeeded))
    return style.paint("── nothing to do: ", .bold) + jobs
  }

  private func showFailure(_ result: RunSummary.JobResult) {
    out.write(style.paint("── ", .bold) + jobName(result.job) + ": " + timeline.outcomeDetail(result) + "\n")
    guard let tail = summary.failureTails[result.job] else { return }
    if tail.omittedLines > 0 {
      out.write(style.paint("    … " + counted(tail.omittedLines, "earlier line"), .dim) + "\n")
    }
    for line in tail.lines {
      out.write(line.isEmpty ? "" : "    ")
      out.write(line)
      out.write("\n")
    }
  }

  /// `── c, d: skipped because a failed` (or `timed out`), the names after the first ten counted.
  private func showConsequence(_ consequence: RunSummary.Consequence, of failure: RunSummary.JobResult) {
    var names = consequence.jobs.prefix(Self.consequencesNamed).map(jobName).joined(separator: ", ")
    let unnamed = consequence.jobs.count - Self.consequencesNamed
    if unnamed > 0 { names += " and \(unnamed) more" }
    let outcome = style.paint(consequence.outcome.rawValue, TerminalStyle.colour(of: consequence.outcome))
    let cause = failure.outcome == .timedOut ? "timed out" : "failed"
    out.write(
      style.paint("── ", .bold) + names + ": " + outcome + " because " + jobName(failure.job) + " " + cause + "\n")
  }

  private func showSlowest() {
    let slowest = summary.slowest(Self.slowestShown)
    guard slowest.count > 1 else { return }
    let entries = slowest.map { jobName($0.job) + " " + TimeText.duration($0.duration) }
    out.write(style.paint("── ", .bold) + "slowest: " + entries.joined(separator: " · ") + "\n")
  }

  /// `── heaviest: link 5.2 GB · test 1.1 GB`: the three largest peaks of memory, when a job
  /// used more than ``RunSummary/notableMemory``.
  private func showHeaviest() {
    let heaviest = summary.heaviest()
    guard !heaviest.isEmpty else { return }
    let entries = heaviest.map { jobName($0.job) + " " + MemoryText.text(bytes: $0.usage!.peakMemory) }
    out.write(style.paint("── ", .bold) + "heaviest: " + entries.joined(separator: " · ") + "\n")
  }

  /// `── summary: 12 jobs · 10 succeeded · 1 failed · 1 skipped · 3.42s wall · exit 1`; the
  /// cancelled ones say how many `oprun ctl` cancelled: `2 cancelled (1 by control)`, the
  /// succeeded ones how many `--resume` did not run again and how many were up to date:
  /// `40 succeeded (36 resumed)`, `12 succeeded (11 up to date)`.
  func countsLine() -> String {
    var parts = [counted(summary.jobCount, "job")]
    for (outcome, text) in Self.outcomeTexts(of: summary) {
      parts.append(style.paint(text, TerminalStyle.colour(of: outcome)))
    }
    if let wallTime = summary.wallTime { parts.append(TimeText.duration(wallTime) + " wall") }
    if let exitCode = summary.exitCode { parts.append("exit \(exitCode)") }
    return style.paint("── summary: ", .bold) + parts.joined(separator: " · ")
  }

  /// Each outcome of `summary` counted as the summary line says it, in the summary's order.
  static func outcomeTexts(of summary: RunSummary) -> [(outcome: Outcome, text: String)] {
    Outcome.countTexts(summary.counts).map { outcome, countText in
      var text = countText
      if outcome == .cancelled, summary.cancelledByControl > 0 { text += " (\(summary.cancelledByControl) by control)" }
      if outcome == .succeeded {
        let restored = "restored from cache, saving \(TimeText.duration(summary.restoredSeconds))"
        let notRun = [
          (summary.resumedCount, "resumed"), (summary.upToDateCount, "up to date"), (summary.restoredCount, restored),
        ].filter { $0.0 > 0 }
        if !notRun.isEmpty { text += " (" + notRun.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")" }
      }
      return (outcome, text)
    }
  }

  private var style: TerminalStyle { timeline.style }
}
