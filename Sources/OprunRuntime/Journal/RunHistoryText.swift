import OprunCore

/// How `oprun log` shows a manifest's past runs and the jobs of one (SPEC §9), to a person
/// and as JSON: pure functions of the journals as read.
public enum RunHistoryText {
  /// The runs, oldest first, one row each: RUN-ID, local start, duration, exit status and
  /// the jobs by outcome. No runs: one line that says so, naming `manifest` and `folder`.
  public static func runs(_ runs: [PastRun], manifest: String, folder: String) -> String {
    guard !runs.isEmpty else { return "no run of \(manifest) is recorded in \(folder) yet\n" }
    return TextTable.render(
      ["RUN", "STARTED", "DURATION", "STATUS", "JOBS"],
      runs.map { run in
        [
          run.run, TimeText.localTime(run.start) ?? "-", run.duration.map(TimeText.duration) ?? "-",
          status(exitCode: run.exitCode), countsText(run.counts, resumed: run.resumed).ifEmpty("no jobs"),
        ]
      })
  }

  /// The runs as one JSON list of {`run`, `start`, `duration`, `exit_code`, `counts`}, a
  /// newline after it.
  public static func runsJSON(_ runs: [PastRun]) -> String {
    let objects = runs.map { run in
      JSONValue.object([
        ("run", .string(run.run)),
        ("start", number(run.start)),
        ("duration", run.duration.map(number) ?? .null),
        ("exit_code", run.exitCode.map { .number(String($0)) } ?? .null),
        ("counts", .object(Outcome.allCases.map { ($0.rawValue, .number(String(run.counts[$0] ?? 0))) })),
      ])
    }
    return String(decoding: JSONValue.array(objects).encoded, as: UTF8.self) + "\n"
  }

  /// One run's jobs, as `nextflow log RUN` shows a run's tasks: a line naming the run, a
  /// table of its job lines in the order written, each failure with the last lines of output
  /// its record kept (as the run's own summary shows them), and the summary of its end line.
  public static func jobs(of journal: Journal) -> String {
    var text = journal.header.map { runLine($0) + "\n" } ?? ""
    text += TextTable.render(
      ["JOB", "OUTCOME", "STATUS", "START", "DURATION", "CPU", "MEMORY", "FINGERPRINT"],
      journal.records.map { record in
        let ran = record.exitCode != nil || record.signal != nil
        return [
          DisplayText.escaped(record.job),
          record.outcome.word + (record.resumed ? " (resumed)" : record.upToDate ? " (up to date)" : ""),
          status(of: record), journal.header.map { TimeText.timestamp(record.start - $0.start) } ?? "-",
          ran ? TimeText.duration(record.duration) : "-", record.usage.map { TimeText.duration($0.cpuSeconds) } ?? "-",
          record.usage.map { MemoryText.text(bytes: $0.peakMemory) } ?? "-",
          JobFingerprint.text(of: record.fingerprint),
        ]
      })
    for record in journal.records where !record.output.isEmpty {
      text += failureLines(of: record)
    }
    return text + summaryLine(of: journal) + "\n"
  }

  /// `── test: failed (exit 4)`, then `    … 150 earlier lines` and the lines its record kept,
  /// indented, each as the job printed it.
  static func failureLines(of record: JournalRecord) -> String {
    var text = "── " + DisplayText.escaped(record.job) + ": " + record.outcome.word
    let ending = status(of: record)
    if ending != "-" { text += " (" + ending + ")" }
    text += "\n"
    let earlier = record.outputLines - record.output.count
    if earlier > 0 { text += "    … " + counted(earlier, "earlier line") + "\n" }
    for line in record.output { text += (line.isEmpty ? "" : "    " + line) + "\n" }
    return text
  }

  /// The journal's lines as written: {`header`, `jobs`, `end`}, `null` for a header or an end
  /// line it does not have; a newline after it.
  public static func journalJSON(_ journal: Journal) -> String {
    let header = journal.lines.last { $0.kind == .header }?.value ?? .null
    let jobs = journal.lines.filter { $0.kind == .job }.map(\.value)
    let end = journal.lines.last { $0.kind == .end }?.value ?? .null
    let object = JSONValue.object([("header", header), ("jobs", .array(jobs)), ("end", end)])
    return String(decoding: object.encoded, as: UTF8.self) + "\n"
  }

  /// `run ID · started 2026-11-25 00:45:24 · /work/jobs.yaml · oprun 0.1.0 · args -k`.
  static func runLine(_ header: JournalHeader) -> String {
    var parts = ["run " + header.run]
    if let started = TimeText.localTime(header.start) { parts.append("started " + started) }
    parts += [header.manifest, "oprun " + header.oprun]
    if !header.args.isEmpty { parts.append("args " + header.args.joined(separator: " ")) }
    return parts.joined(separator: " · ")
  }

  /// `── summary: 2 jobs · 1 succeeded · 1 failed · 0.01s wall · exit 1`, as the run's own
  /// summary ended; for a run that did not finish, what its job lines counted and `did not
  /// finish`.
  static func summaryLine(of journal: Journal) -> String {
    let counts = PastRun.counts(of: journal)
    var parts = [counted(counts.values.reduce(0, +), "job")]
    let outcomes = countsText(counts, resumed: PastRun.resumedCount(of: journal))
    if !outcomes.isEmpty { parts.append(outcomes) }
    if let end = journal.end {
      if let duration = end.duration { parts.append(TimeText.duration(duration) + " wall") }
      parts.append("exit \(end.exitCode)")
    } else {
      parts.append("did not finish")
    }
    return "── summary: " + parts.joined(separator: " · ")
  }

  /// `3 succeeded (2 resumed) · 1 failed`: the outcomes that occurred; empty for none.
  static func countsText(_ counts: [Outcome: Int], resumed: Int) -> String {
    Outcome.countTexts(counts).map { outcome, text in
      outcome == .succeeded && resumed > 0 ? text + " (\(resumed) resumed)" : text
    }.joined(separator: " · ")
  }

  /// `exit 1`, or `did not finish` for a run without an end line.
  static func status(exitCode: Int?) -> String {
    exitCode.map { "exit \($0)" } ?? "did not finish"
  }

  /// How a job's command ended: `exit 2`, `signal SIGTERM`; `-` when none ran.
  static func status(of record: JournalRecord) -> String {
    if let code = record.exitCode, let code = Int32(exactly: code) {
      return TimelineFormatter.terminationText(.exited(code))
    }
    if let signal = record.signal, let signal = Int32(exactly: signal) {
      return TimelineFormatter.terminationText(.signalled(signal))
    }
    return "-"
  }

  /// A number of seconds as the journal writes it: to the millisecond, trailing zeros dropped.
  private static func number(_ seconds: Double) -> JSONValue {
    .number(DecimalText.string(seconds, fractionDigits: 3, trimmingZeros: true))
  }
}

extension String {
  fileprivate func ifEmpty(_ replacement: String) -> String {
    isEmpty ? replacement : self
  }
}
