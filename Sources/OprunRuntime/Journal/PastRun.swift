import OprunCore

/// One past run as `oprun log` lists it (SPEC §9), taken from its journal.
public struct PastRun: Sendable, Equatable {
  /// The RUN-ID.
  public var run: String
  /// Unix time in seconds.
  public var start: Double
  /// Seconds from start to end; nil when the run did not finish.
  public var duration: Double?
  /// oprun's exit status; nil when the run did not finish.
  public var exitCode: Int?
  /// Every outcome, 0 for those that did not occur.
  public var counts: [Outcome: Int]
  /// How many of the succeeded jobs `--resume` did not run again.
  public var resumed: Int

  public init(run: String, start: Double, duration: Double?, exitCode: Int?, counts: [Outcome: Int], resumed: Int) {
    self.run = run
    self.start = start
    self.duration = duration
    self.exitCode = exitCode
    self.counts = Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0, counts[$0] ?? 0) })
    self.resumed = resumed
  }

  /// The run `journal` recorded; `header` says which (the journal's own, when it has one,
  /// is the same).
  public init(header: JournalHeader, journal: Journal) {
    self.init(
      run: header.run, start: header.start, duration: journal.end?.duration, exitCode: journal.end?.exitCode,
      counts: Self.counts(of: journal), resumed: Self.resumedCount(of: journal))
  }

  /// The run has an end line: oprun was not killed before it finished.
  public var finished: Bool { exitCode != nil }

  /// The jobs of the run: its end line's counts, or, for a run that did not finish, those of
  /// its job lines (each job's last).
  public static func counts(of journal: Journal) -> [Outcome: Int] {
    if let end = journal.end, !end.counts.isEmpty { return end.counts }
    var counts: [Outcome: Int] = [:]
    for record in journal.recordsByJob.values { counts[record.outcome, default: 0] += 1 }
    return counts
  }

  /// The jobs the run resumed: as its end line says, else counted from its job lines.
  static func resumedCount(of journal: Journal) -> Int {
    journal.end?.resumed ?? journal.recordsByJob.values.count(where: \.resumed)
  }
}
