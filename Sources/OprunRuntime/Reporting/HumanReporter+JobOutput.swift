import OprunCore

/// Job output in the three `--output` modes. In every mode stdout and stderr go to the
/// same human stream, in the order they arrived; what a job's leftover processes write
/// after it finished is shown the same way, under its name.
extension HumanReporter {
  func showOutput(_ text: [UInt8], of job: JobID) {
    guard !text.isEmpty else { return }
    switch options.outputMode {
    case .raw:
      // Each event is one line (or a partial one: the job ended, or the line reached
      // 64 KiB), so lines of different jobs never mix.
      if rawLineOwner != job { closeRawLine() }
      out.write(text)
      rawLineOwner = text.last == UInt8(ascii: "\n") ? nil : job
    case .prefixed:
      writePrefixed(text, of: job)
    case .grouped:
      let problem = pendingGroups[job, default: KeptOutput()].append(text, storage: groupedStorage)
      if let problem, !hasWarnedOfKeptOutput {
        hasWarnedOfKeptOutput = true
        showWarning(problem)
      }
    }
  }

  /// Each line as `job | text` (`job |` alone for an empty line).
  private func writePrefixed(_ text: [UInt8], of job: JobID) {
    let prefix = timeline.style.paint(jobName(job) + " |", .dim)
    for line in WholeText.lines(of: text) {
      out.write(prefix)
      if !line.isEmpty {
        out.write(" ")
        line.withUnsafeBytes { out.write($0) }
      }
      out.write("\n")
    }
  }

  /// Grouped mode: prints the output `job` kept, as one block under a header line: when the
  /// job finishes, and again for what came after (from its completion command, or from what
  /// it left running) when the completion ends and when the run does.
  func showGroup(of job: JobID) {
    guard let kept = pendingGroups.removeValue(forKey: job), !kept.isEmpty else { return }
    let name = jobName(job)
    out.write(options.githubActions ? "::group::" + name + "\n" : timeline.style.paint("── " + name, .bold) + "\n")
    kept.write(to: out)
    if kept.lastByte != UInt8(ascii: "\n") { out.write("\n") }
    if options.githubActions { out.write("::endgroup::\n") }
  }

  /// Output of jobs that never finished is still shown, in manifest order.
  func showRemainingGroups() {
    for job in pendingGroups.keys.sorted() { showGroup(of: job) }
  }

  /// Raw mode: ends the line a job left open, so that what follows starts a line of its own.
  func closeRawLine() {
    guard rawLineOwner != nil else { return }
    out.write("\n")
    rawLineOwner = nil
  }
}
