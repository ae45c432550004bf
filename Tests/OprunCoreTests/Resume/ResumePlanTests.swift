import OprunCore
import Testing

/// SPEC §9: a job is resumed when its fingerprint is unchanged, it succeeded last time, and
/// every job it depends on is resumed too; every other job runs and says why.
@Suite struct ResumePlanTests {
  private func graph(_ yaml: String) throws -> JobGraph {
    try ManifestLoader.graph(from: SourceText(path: "jobs.yaml", text: yaml), defaultMaxConcurrent: 4).get()
  }

  /// a ← b ← c ← d, and e on its own; `cleanup` after d whatever happens.
  private let chain = """
    jobs:
      a: {command: make a}
      b: {command: make b, dependencies: [a]}
      c: {command: make c, dependencies: [b]}
      d: {command: make d, dependencies: [c]}
      e: {command: make e}
      cleanup: {command: rm -rf tmp, dependencies: [d], run-if: always}
    """

  /// A record of every job of `graph` as it is now: succeeded unless `outcomes` says
  /// otherwise, with every part; the jobs in `missing` have none.
  private func records(
    of graph: JobGraph, outcomes: [String: Outcome] = [:], missing: Set<String> = [], withParts: Bool = true
  ) -> [String: JournalRecord] {
    var records: [String: JournalRecord] = [:]
    for (job, fingerprint) in zip(graph.jobs, graph.fingerprints()) where !missing.contains(job.name) {
      records[job.name] = JournalRecord(
        job: job.name, outcome: outcomes[job.name] ?? .succeeded, fingerprint: fingerprint.value,
        parts: withParts ? fingerprint.parts : [:])
    }
    return records
  }

  private func plan(_ graph: JobGraph, _ records: [String: JournalRecord]?) -> [String: RunDecision] {
    let plan = ResumePlan(graph: graph, fingerprints: graph.fingerprints(), records: records, journalRun: "run-1")
    #expect(plan.decisions.count == graph.jobs.count)
    return Dictionary(uniqueKeysWithValues: zip(graph.jobs.map(\.name), plan.decisions))
  }

  private func id(_ graph: JobGraph, _ name: String) -> JobID { graph.job(named: name)! }

  @Test func withoutAJournalEveryJobRuns() throws {
    let graph = try graph(chain)
    let plan = ResumePlan(graph: graph, fingerprints: graph.fingerprints(), records: nil, journalRun: nil)
    #expect(plan.decisions == Array(repeating: .runs(.noJournal), count: graph.jobs.count))
    #expect(plan.resumedCount == 0)
    #expect(plan.journalRun == nil)
  }

  @Test func everyJobThatSucceededUnchangedIsResumed() throws {
    let graph = try graph(chain)
    let plan = ResumePlan(
      graph: graph, fingerprints: graph.fingerprints(), records: records(of: graph), journalRun: "r")
    #expect(plan.decisions.allSatisfy { $0 == .resumed })
    #expect(plan.resumedCount == graph.jobs.count)
    #expect(plan.journalRun == "r")
  }

  @Test func anEmptyJournalLeavesEveryJobNotInTheLastRun() throws {
    let graph = try graph(chain)
    // Each job's own reason comes before its dependency's.
    #expect(plan(graph, [:]).values.allSatisfy { $0 == .runs(.notInLastRun) })
  }

  @Test func aFailedJobAndEverythingDownstreamRunNamingTheOrigin() throws {
    let graph = try graph(chain)
    let decisions = plan(graph, records(of: graph, outcomes: ["b": .failed, "cleanup": .succeeded]))
    let b = id(graph, "b")
    #expect(decisions["a"] == .resumed)
    #expect(decisions["b"] == .runs(.lastOutcome(.failed)))
    #expect(decisions["c"] == .runs(.dependencyRuns(b, origin: b)))
    #expect(decisions["d"] == .runs(.dependencyRuns(id(graph, "c"), origin: b)))
    #expect(decisions["cleanup"] == .runs(.dependencyRuns(id(graph, "d"), origin: b)))
    #expect(decisions["e"] == .resumed)
  }

  @Test(arguments: [Outcome.failed, .cancelled, .skipped, .timedOut])
  func everyOutcomeButSuccessRunsAgain(outcome: Outcome) throws {
    let graph = try graph(chain)
    let decisions = plan(graph, records(of: graph, outcomes: ["d": outcome]))
    #expect(decisions["d"] == .runs(.lastOutcome(outcome)))
    #expect(decisions["cleanup"] == .runs(.dependencyRuns(id(graph, "d"), origin: id(graph, "d"))))
    #expect(decisions["c"] == .resumed)
  }

  @Test func aChangedCommandRunsNamingCommandAndItsDependentsFollow() throws {
    let old = try graph(chain)
    let new = try graph(chain.replacingOccurrences(of: "make b", with: "make b -j8"))
    let decisions = plan(new, records(of: old))
    let b = id(new, "b")
    #expect(decisions["a"] == .resumed)
    #expect(decisions["b"] == .runs(.changed([.command])))
    #expect(decisions["c"] == .runs(.dependencyRuns(b, origin: b)))
    #expect(decisions["d"] == .runs(.dependencyRuns(id(new, "c"), origin: b)))
    #expect(decisions["e"] == .resumed)
  }

  @Test func aChangeComesBeforeTheLastOutcome() throws {
    let old = try graph(chain)
    let new = try graph(chain.replacingOccurrences(of: "make b", with: "make b -j8"))
    #expect(plan(new, records(of: old, outcomes: ["b": .failed]))["b"] == .runs(.changed([.command])))
  }

  @Test func everyChangedPartIsNamedInPartOrder() throws {
    let old = try graph("jobs: {a: {command: x}, b: {command: y}}")
    let new = try graph("jobs: {a: {command: x}, b: {command: z, timeout: 1m, env: {A: b}, dependencies: [a]}}")
    #expect(plan(new, records(of: old))["b"] == .runs(.changed([.command, .env, .timeout, .dependencies])))
  }

  @Test func aJobTheJournalDoesNotHaveRunsAsNotInTheLastRun() throws {
    let graph = try graph(chain)
    let decisions = plan(graph, records(of: graph, missing: ["c"]))
    #expect(decisions["b"] == .resumed)
    #expect(decisions["c"] == .runs(.notInLastRun))
    #expect(decisions["d"] == .runs(.dependencyRuns(id(graph, "c"), origin: id(graph, "c"))))
  }

  @Test func aRecordWithoutPartsAndAnotherFingerprintRunsAsChangedWithoutNames() throws {
    let old = try graph(chain)
    let new = try graph(chain.replacingOccurrences(of: "make e", with: "make E"))
    let decisions = plan(new, records(of: old, withParts: false))
    #expect(decisions["e"] == .runs(.changed([])))
    #expect(decisions["a"] == .resumed, "a record without parts and the same fingerprint is unchanged")
  }

  @Test func aRecordWhosePartsMatchButNotItsFingerprintRunsAsChanged() throws {
    let graph = try graph(chain)
    var records = records(of: graph)
    records["e"]!.fingerprint ^= 1
    #expect(plan(graph, records)["e"] == .runs(.changed([])))
  }

  @Test func aJobChangedOnlyUpstreamRunsBecauseOfItsDependency() throws {
    let old = try graph(chain)
    let new = try graph(chain.replacingOccurrences(of: "make a", with: "make A"))
    let decisions = plan(new, records(of: old))
    let a = id(new, "a")
    #expect(decisions["a"] == .runs(.changed([.command])))
    #expect(decisions["b"] == .runs(.dependencyRuns(a, origin: a)))
    #expect(decisions["d"] == .runs(.dependencyRuns(id(new, "c"), origin: a)))
  }

  @Test func aJobWithTwoRunningDependenciesNamesOneOfThemAndItsOrigin() throws {
    let graph = try graph(
      """
      jobs:
        left: {command: l}
        right: {command: r}
        mid: {command: m, dependencies: [right]}
        join: {command: j, dependencies: [left, mid]}
      """)
    let decisions = plan(graph, records(of: graph, outcomes: ["left": .failed, "right": .cancelled]))
    guard case .runs(.dependencyRuns(let dependency, let origin)) = decisions["join"] else {
      Issue.record("join runs because of a dependency, not \(String(describing: decisions["join"]))")
      return
    }
    let (left, mid, right) = (id(graph, "left"), id(graph, "mid"), id(graph, "right"))
    #expect((dependency, origin) == (left, left) || (dependency, origin) == (mid, right))
  }

  @Test func reasonsHaveCodesAndTextForPeople() throws {
    let graph = try graph(chain)
    let (b, c) = (id(graph, "b"), id(graph, "c"))
    let cases: [(RunDecision, String, String)] = [
      (.resumed, "resumed", "resumed"),
      (.runs(.noJournal), "no-journal", "no journal of an earlier run"),
      (.runs(.notInLastRun), "not-in-last-run", "no record of it in the last run"),
      (.runs(.lastOutcome(.failed)), "failed", "failed last time"),
      (.runs(.lastOutcome(.timedOut)), "timed-out", "timed out last time"),
      (.runs(.changed([])), "changed", "changed"),
      (.runs(.changed([.command, .env])), "changed", "command, env changed"),
      (.runs(.dependencyRuns(b, origin: b)), "dependency-runs", "dependency b runs"),
      (.runs(.dependencyRuns(c, origin: b)), "dependency-runs", "dependency c runs (because of b)"),
    ]
    for (decision, code, text) in cases {
      #expect(decision.code == code)
      #expect(decision.text(in: graph) == text)
    }
  }

  // MARK: - JournalHistory

  private func journal(
    _ run: String, targets: [String] = [], _ records: [(String, Outcome)], fingerprints: [String: UInt64] = [:]
  ) -> Journal {
    var journal = Journal()
    journal.header = JournalHeader(
      run: run, manifest: "/work/jobs.yaml", start: 0, oprun: "test", args: targets, targets: targets)
    journal.records = records.map { name, outcome in
      JournalRecord(job: name, outcome: outcome, fingerprint: fingerprints[name] ?? 1)
    }
    return journal
  }

  /// Hands out `journals` newest first, counting the calls.
  private final class Journals {
    var remaining: [Journal]
    var calls = 0
    init(_ journals: [Journal]) { remaining = journals }
    func next() -> Journal? {
      calls += 1
      return remaining.isEmpty ? nil : remaining.removeFirst()
    }
  }

  /// a ← b ← c, and d on its own.
  private let history = """
    jobs:
      a: {command: a}
      b: {command: b, dependencies: [a]}
      c: {command: c, dependencies: [b]}
      d: {command: d}
    """

  @Test func withoutAnyJournalThereAreNoRecords() throws {
    let journals = Journals([])
    #expect(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next) == nil)
    #expect(journals.calls == 1)
  }

  @Test func aNewestTargetedJournalCoversItsTargetsAndTheirDependenciesOnly() throws {
    let journals = Journals([
      journal("newest", targets: ["b"], [("a", .succeeded), ("b", .failed)]),
      journal("older", [("a", .failed), ("b", .succeeded), ("c", .succeeded), ("d", .timedOut)]),
    ])
    let (records, run) = try #require(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next))
    #expect(run == "newest")
    #expect(records.mapValues(\.outcome) == ["a": .succeeded, "b": .failed, "c": .succeeded, "d": .timedOut])
    #expect(journals.calls == 2)
  }

  @Test func aJobATargetedJournalCoveredButDidNotFinishHasNoRecord() throws {
    let journals = Journals([
      journal("newest", targets: ["b"], [("a", .succeeded)]),
      journal("older", [("a", .succeeded), ("b", .succeeded), ("c", .succeeded), ("d", .succeeded)]),
    ])
    let (records, _) = try #require(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next))
    #expect(records["b"] == nil, "b was covered by the newest run and never finished there")
    #expect(Set(records.keys) == ["a", "c", "d"])
  }

  @Test func aNewestUntargetedJournalStopsTheSearch() throws {
    let journals = Journals([
      journal("newest", [("a", .succeeded), ("b", .failed)]),
      journal("older", [("a", .succeeded), ("b", .succeeded), ("c", .succeeded), ("d", .succeeded)]),
    ])
    let (records, run) = try #require(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next))
    #expect(run == "newest")
    #expect(journals.calls == 1)
    #expect(records.mapValues(\.outcome) == ["a": .succeeded, "b": .failed])
  }

  @Test func aJournalWithoutAHeaderCoversEveryJob() throws {
    var headless = journal("newest", [("a", .succeeded)])
    headless.header = nil
    let journals = Journals([headless, journal("older", [("d", .succeeded)])])
    let (records, run) = try #require(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next))
    #expect(run == nil)
    #expect(journals.calls == 1)
    #expect(Set(records.keys) == ["a"])
  }

  @Test func aTargetedJournalWhoseTargetTheGraphNoLongerHasCoversEverything() throws {
    let journals = Journals([
      journal("newest", targets: ["gone"], [("gone", .succeeded), ("a", .failed)]),
      journal("older", [("a", .succeeded), ("b", .succeeded), ("c", .succeeded), ("d", .succeeded)]),
    ])
    let (records, run) = try #require(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next))
    #expect(run == "newest")
    #expect(journals.calls == 1)
    #expect(records.filter { $0.key != "gone" }.mapValues(\.outcome) == ["a": .failed])
  }

  @Test func targetedJournalsAreWalkedBackUntilEveryJobIsCovered() throws {
    let journals = Journals([
      journal("third", targets: ["a"], [("a", .failed)]),
      journal("second", targets: ["c"], [("a", .succeeded), ("b", .succeeded), ("c", .cancelled)]),
      journal("first", [("a", .succeeded), ("b", .failed), ("c", .succeeded), ("d", .skipped)]),
      journal("never read", [("d", .succeeded)]),
    ])
    let (records, run) = try #require(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next))
    #expect(run == "third")
    #expect(records.mapValues(\.outcome) == ["a": .failed, "b": .succeeded, "c": .cancelled, "d": .skipped])
    #expect(journals.calls == 3)
  }

  @Test func theSearchStopsAsSoonAsTargetedJournalsCoverEveryJob() throws {
    let journals = Journals([
      journal("newest", targets: ["c"], [("a", .succeeded), ("b", .succeeded), ("c", .succeeded)]),
      journal("older", targets: ["d"], [("d", .succeeded)]),
      journal("oldest", [("a", .failed), ("b", .failed), ("c", .failed), ("d", .failed)]),
    ])
    let (records, _) = try #require(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next))
    #expect(journals.calls == 2)
    #expect(records.values.allSatisfy { $0.outcome == .succeeded })
    #expect(records.count == 4)
  }

  @Test func runningOutOfJournalsLeavesTheRestWithoutRecords() throws {
    let journals = Journals([journal("only", targets: ["b"], [("a", .succeeded), ("b", .succeeded)])])
    let (records, run) = try #require(JournalHistory.lastRecords(for: try graph(history), nextNewest: journals.next))
    #expect(run == "only")
    #expect(Set(records.keys) == ["a", "b"])
    #expect(journals.calls == 2)
  }

  @Test func aPlanFromTheHistoryResumesWhatTheTargetedRunDidAndTheOlderRunDid() throws {
    let graph = try graph(history)
    let fingerprints = Dictionary(uniqueKeysWithValues: zip(graph.jobs.map(\.name), graph.fingerprints().map(\.value)))
    let journals = Journals([
      journal("newest", targets: ["b"], [("a", .succeeded)], fingerprints: fingerprints),
      journal("older", [("b", .succeeded), ("c", .succeeded), ("d", .succeeded)], fingerprints: fingerprints),
    ])
    let (records, run) = try #require(JournalHistory.lastRecords(for: graph, nextNewest: journals.next))
    let plan = ResumePlan(graph: graph, fingerprints: graph.fingerprints(), records: records, journalRun: run)
    let b = id(graph, "b")
    #expect(
      plan.decisions == [.resumed, .runs(.notInLastRun), .runs(.dependencyRuns(b, origin: b)), .resumed])
    #expect(plan.journalRun == "newest")
  }
}
