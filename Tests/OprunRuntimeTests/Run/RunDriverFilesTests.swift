import OprunCore
import Testing

@testable import OprunRuntime

/// The driver with files deciding (SPEC §10): a job that declares inputs or outputs is ready
/// when its dependencies allow, and waits while its files are looked at; then it is up to
/// date and finishes without running, or it runs saying why, and its outputs are looked at
/// before it finishes.
@Suite struct RunDriverFilesTests {
  private let manifest = """
    jobs:
      build: {command: build, inputs: [src], outputs: [app], completion: notify}
      test: {command: test, dependencies: [build], inputs: [app], outputs: [log]}
      other: {command: other}
    """

  private static func graph(_ manifest: String) -> JobGraph {
    try! ManifestLoader.graph(from: SourceText(path: "/work/jobs.yaml", text: manifest), defaultMaxConcurrent: 4).get()
  }

  /// A record of `job`'s success with its files as `inputs` and `outputs` were, and what
  /// its dependencies were then.
  private static func success(
    of job: String, in graph: JobGraph, inputs: FileSnapshot, outputs: FileSnapshot,
    dependencies: [String: String] = [:]
  ) -> JournalRecord {
    let id = graph.job(named: job)!
    let fingerprint = graph.fingerprints()[id]
    var record = JournalRecord(
      job: job, outcome: .succeeded, exitCode: 0, duration: 1, fingerprint: fingerprint.value, parts: fingerprint.parts)
    record.files = RecordedFiles(
      inputs: inputs.digest, outputs: RecordedOutputs(outputs), result: outputs.digest, dependencies: dependencies)
    return record
  }

  private func harness(
    records: @escaping (JobGraph) -> [String: JournalRecord] = { _ in [:] }, force: Bool = false,
    script: @escaping (FakeFileChecker) -> Void = { _ in }
  ) -> (DriverHarness, () -> FakeFileChecker) {
    var checker: FakeFileChecker!
    let manifest = manifest
    let harness = DriverHarness(manifest) { clock in
      checker = FakeFileChecker(clock: clock)
      script(checker)
      return FileTracking(
        checker: checker, records: records(Self.graph(manifest)), recordedInputs: { _ in nil }, force: force)
    }
    return (harness, { checker })
  }

  private let source = FakeFileChecker.file("src", "v1")
  private let app = FakeFileChecker.file("app", "a1")
  private let log = FakeFileChecker.file("log", "l1")

  private func scriptUnchanged(_ checker: FakeFileChecker) {
    checker.snapshots = ["src": source, "app": app, "log": log]
  }

  /// Both jobs recorded as they are now: nothing changed.
  private var unchangedRecords: (JobGraph) -> [String: JournalRecord] {
    { [source, app, log] graph in
      [
        "build": Self.success(of: "build", in: graph, inputs: source, outputs: app),
        "test": Self.success(of: "test", in: graph, inputs: app, outputs: log, dependencies: ["build": app.digest]),
      ]
    }
  }

  @Test func unchangedJobsFinishUpToDateWithoutRunningWhileOthersRun() {
    let (run, _) = harness(records: unchangedRecords, script: scriptUnchanged)
    run.start()
    // build is ready as the run starts; it waits for its files while the job without files runs.
    #expect(run.events.lines(of: "build") == ["build pending>ready"])
    #expect(run.events.lines(of: "other") == ["other pending>ready", "other ready>executing"])
    #expect(run.driver.engine.state(of: run.id("build")) == .ready)
    #expect(run.runToEnd() == 0)
    #expect(run.events.lines(of: "build") == ["build pending>ready", "build ready>finished succeeded"])
    #expect(run.events.lines(of: "test") == ["test pending>ready", "test ready>finished succeeded"])
    #expect(run.backend.attemptOrders(of: run.id("build")).isEmpty)
    // Nothing ran, so nothing completes.
    #expect(run.backend.completionOrders(of: run.id("build")).isEmpty)
    let finished = run.events.transitions(of: "build").last!
    #expect(finished.upToDate)
    // Ready before its files said anything; its finishing says what they decided.
    #expect(run.events.transitions(of: "build").first!.decision == nil)
    #expect(finished.decision == .upToDate)
    // The record is carried forward.
    #expect(finished.files?.recorded.inputs == source.digest)
    #expect(finished.files?.recorded.outputs == .listed(app.files))
  }

  @Test func aJobWithNoRecordRunsSayingWhyAndRecordsItsFiles() {
    let (run, _) = harness(script: scriptUnchanged)
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.events.transitions(of: "build").first { $0.to == .executing }?.decision == .runs(.noRecord))
    let finished = run.events.transitions(of: "build").last!
    #expect(finished.outcome == .succeeded && !finished.upToDate)
    #expect(finished.files?.recorded.inputs == source.digest)
    #expect(finished.files?.recorded.result == app.digest)
    #expect(finished.files?.inputs.records == source.files)
    // test saw build's result, its outputs' digest.
    #expect(run.events.transitions(of: "test").last!.files?.recorded.dependencies == ["build": app.digest])
  }

  @Test func anEditedInputRunsTheJobAndAnIdenticalOutputLeavesItsDependentUpToDate() {
    let (run, _) = harness(records: unchangedRecords) { checker in
      checker.snapshots = ["src": FakeFileChecker.file("src", "v2"), "app": app, "log": log]
    }
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.backend.attemptOrders(of: run.id("build")).count == 1)
    // build wrote app byte for byte as before: early cutoff.
    #expect(run.backend.attemptOrders(of: run.id("test")).isEmpty)
    #expect(run.events.transitions(of: "test").last!.upToDate)
  }

  @Test func aDeclaredOutputLeftMissingFailsTheJobWithExitZero() {
    let (run, checker) = harness(script: { $0.snapshots = ["src": source] })
    run.start()
    #expect(run.runToEnd() == 1)
    let finished = run.events.transitions(of: "build").last!
    #expect(finished.outcome == .failed)
    #expect(finished.termination == .exited(0))
    #expect(finished.missingOutputs == ["app"])
    #expect(finished.files == nil)
    // on-failure: stop, as after any failure.
    #expect(run.events.lines(of: "test").last == "test ready>finished cancelled")
    // Looked at before it ran, and again after its command succeeded.
    #expect(checker().requests.filter { $0.patterns.map(\.text) == ["app"] }.count == 2)
  }

  @Test func aJobCancelledWhileItsFilesAreLookedAtIsCancelledAndTheLateAnswerIgnored() {
    let (run, _) = harness(records: unchangedRecords, script: scriptUnchanged)
    run.start()
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: 2))
    #expect(
      run.events.lines(of: "build") == [
        "build pending>ready", "build cancelled interrupt", "build ready>finished cancelled",
        "build completion-started",
      ])
    _ = run.runToEnd()
    #expect(run.events.lines(of: "build").count == 5)
    #expect(run.events.transitions(of: "build").allSatisfy { !$0.upToDate })
  }

  @Test func forceRunsEveryJobAndRecordsIt() {
    let (run, _) = harness(records: unchangedRecords, force: true, script: scriptUnchanged)
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.events.transitions(of: "build").first { $0.to == .executing }?.decision == .runs(.forced))
    #expect(run.backend.attemptOrders(of: run.id("test")).count == 1)
    #expect(run.events.transitions(of: "test").last!.files != nil)
  }
}
