import OprunCore

/// The live status line on a terminal (SPEC §5): erased before anything else is written and
/// drawn again after each event, and at least once a second by ``refreshStatusLine(at:columns:)``,
/// so it is always the last line on the screen and never part of another.
extension HumanReporter {
  /// Redraws the line with the time now and the terminal's width now; the run's session calls
  /// it once a second. Nothing when there is no status line, or the run has finished.
  public func refreshStatusLine(at time: Double, columns: Int?) {
    guard statusLine != nil else { return }
    if let columns { statusLine?.columns = columns }
    eraseStatusLine()
    drawStatusLine(at: time)
    out.flush()
  }

  func eraseStatusLine() {
    guard statusLine?.isShown == true else { return }
    out.write(StatusLine.erase)
    statusLine?.isShown = false
  }

  /// Draws the line unless something else owns the cursor's line: a job's unfinished raw
  /// line (it would be glued to it), or an interactive job that is ready or executing, which
  /// writes to the terminal itself.
  func drawStatusLine(at time: Double) {
    guard var line = statusLine, !line.isShown, rawLineOwner == nil, line.consoleJobs.isEmpty else { return }
    out.write(line.text(elapsed: time, style: timeline.style, name: jobName, queueName: queueName))
    line.isShown = true
    statusLine = line
  }
}
