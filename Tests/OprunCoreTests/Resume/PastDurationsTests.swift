import OprunCore
import Testing

/// The weights of `--schedule critical-path` (SPEC §5): the median duration of each job's
/// executed attempts over a manifest's journals.
@Suite struct PastDurationsTests {
  private func record(
    _ job: String, _ duration: Double, outcome: Outcome = .succeeded, resumed: Bool = false
  ) -> JournalRecord {
    JournalRecord(job: job, outcome: outcome, duration: duration, fingerprint: 1, resumed: resumed)
  }

  private func durations(_ records: [JournalRecord]) -> PastDurations {
    var durations = PastDurations()
    for record in records { durations.add(record) }
    return durations
  }

  @Test func theMedianOfAnOddNumberOfDurationsIsTheMiddleOne() {
    let past = durations([record("build", 9), record("build", 1), record("build", 2)])
    #expect(past.median(of: "build") == 2)
    #expect(past.count(of: "build") == 3)
  }

  @Test func theMedianOfAnEvenNumberOfDurationsIsTheMeanOfTheMiddleTwo() {
    let past = durations([record("build", 4), record("build", 1), record("build", 2), record("build", 100)])
    #expect(past.median(of: "build") == 3)
  }

  @Test func aResumedRecordIsNoMeasurement() {
    let past = durations([record("build", 0, resumed: true), record("build", 5), record("lint", 0, resumed: true)])
    #expect(past.median(of: "build") == 5)
    #expect(past.count(of: "build") == 1)
    #expect(past.median(of: "lint") == nil)
  }

  /// An up-to-date job ran nothing (SPEC §10): its record's 0 s is no measurement either.
  @Test func anUpToDateRecordIsNoMeasurement() {
    var upToDate = record("build", 0)
    upToDate.upToDate = true
    let past = durations([upToDate, record("build", 7), upToDate])
    #expect(past.median(of: "build") == 7)
    #expect(past.count(of: "build") == 1)
  }

  @Test func failedAndTimedOutAttemptsAreMeasuredButCancelledAndSkippedJobsAreNot() {
    let past = durations([
      record("test", 3, outcome: .failed), record("test", 60, outcome: .timedOut),
      record("test", 0.5, outcome: .cancelled), record("deploy", 0, outcome: .skipped),
      record("serve", 2, outcome: .cancelled),
    ])
    #expect(past.count(of: "test") == 2)
    #expect(past.median(of: "test") == 31.5)
    #expect(past.median(of: "deploy") == nil)
    #expect(past.median(of: "serve") == nil)
  }

  @Test func aNegativeDurationIsNoMeasurement() {
    let past = durations([record("build", -3)])
    #expect(past.median(of: "build") == nil)
  }

  @Test func everyJournalAddedCounts() {
    let older = Journal.read(Array((JournalReadingTests.job("build") + "\n").utf8))
    let newer = Journal.read(
      Array(
        (JournalReadingTests.job("build", extra: #","resumed":true"#) + "\n" + JournalReadingTests.job("lint") + "\n")
          .utf8))
    var past = PastDurations()
    past.add(older)
    past.add(newer)
    // The journal lines say 1.25 s; the resumed line of build is no measurement.
    #expect(past.count(of: "build") == 1)
    #expect(past.median(of: "build") == 1.25)
    #expect(past.median(of: "lint") == 1.25)
  }

  @Test func durationsOfAGraphAreByJobIDAndNilWhereUnknown() {
    let graph = makeGraph("fetch\nbuild <- fetch\ntest <- build")
    let past = durations([record("test", 7), record("fetch", 0.25), record("gone", 3)])
    #expect(past.durations(of: graph) == [0.25, nil, 7])
  }
}
