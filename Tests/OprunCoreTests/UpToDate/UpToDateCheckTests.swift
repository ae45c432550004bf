import OprunCore
import Testing

/// SPEC §10's decision, without files: one test per rule of when a job that declares inputs
/// or outputs is up to date, and of what its result is to its dependents.
@Suite struct UpToDateCheckTests {
  private let manifest = """
    jobs:
      build: {command: cc -o app src/*.c, inputs: ["src/**/*.c"], outputs: [app]}
      test: {command: ./app > test.log, dependencies: [build], inputs: [app], outputs: [test.log]}
      stamp: {command: date > stamp, inputs: [VERSION]}
      after: {command: echo, dependencies: [stamp], inputs: [x]}
    """

  private func graph(_ yaml: String? = nil) throws -> JobGraph {
    try ManifestLoader.graph(from: SourceText(path: "jobs.yaml", text: yaml ?? manifest), defaultMaxConcurrent: 4).get()
  }

  private func file(_ path: String, _ content: String) -> FileRecord {
    FileRecord(path: path, kind: .file, digest: String(repeating: content, count: 64 / content.count))
  }

  /// A snapshot whose digest stands for its files, as a real one's would.
  private func snapshot(_ files: [FileRecord], unmatched: [Int] = []) -> FileSnapshot {
    FileSnapshot(
      files: files, unmatchedPatterns: unmatched,
      digest: files.map { "\($0.path)=\($0.digest)" }.joined(separator: ";"))
  }

  private let sources = [
    FileRecord(path: "src/a.c", kind: .file, digest: String(repeating: "a", count: 64)),
    FileRecord(path: "src/b.c", kind: .file, digest: String(repeating: "b", count: 64)),
  ]
  private var app: [FileRecord] { [file("app", "1")] }

  /// `build`'s check against a record of its success with `sources` and `app`.
  private func buildCheck(
    _ graph: JobGraph, inputs: [FileRecord]? = nil, outputs: FileSnapshot? = nil, record: JournalRecord?? = .none,
    listing: [FileRecord]?? = .none
  ) -> UpToDateCheck {
    let job = graph.job(named: "build")!
    let fingerprint = graph.fingerprints()[job]
    let recorded = RecordedFiles(
      inputs: snapshot(sources).digest, outputs: .listed(app), result: snapshot(app).digest, dependencies: [:])
    var success = JournalRecord(
      job: "build", outcome: .succeeded, exitCode: 0, duration: 1, fingerprint: fingerprint.value,
      parts: fingerprint.parts)
    success.files = recorded
    return UpToDateCheck(
      job: job, record: record ?? success, fingerprint: fingerprint, inputs: snapshot(inputs ?? sources),
      outputs: outputs ?? snapshot(app), recordedInputs: (listing ?? sources).map(FileListing.init), dependencyResults: [])
  }

  @Test func unchangedInputsOutputsAndSettingsAreUpToDate() throws {
    let graph = try graph()
    #expect(buildCheck(graph).decision(in: graph) == .upToDate)
  }

  @Test func aJobWithNoRecordRuns() throws {
    let graph = try graph()
    #expect(buildCheck(graph, record: .some(nil)).decision(in: graph) == .runs(.noRecord))
  }

  @Test(arguments: [Outcome.failed, .timedOut])
  func aJobWhoseNewestRecordIsAFailureRuns(outcome: Outcome) throws {
    let graph = try graph()
    var failed = JournalRecord(job: "build", outcome: outcome, exitCode: 1, fingerprint: 0)
    failed.files = nil
    #expect(buildCheck(graph, record: failed).decision(in: graph) == .runs(.lastOutcome(outcome)))
  }

  @Test func aCancelledJobThatRanRunsButOneThatNeverStartedLeavesTheRecordBeforeIt() {
    let ran = JournalRecord(job: "build", outcome: .cancelled, signal: 15, duration: 0.5, fingerprint: 0)
    let never = JournalRecord(job: "build", outcome: .cancelled, fingerprint: 0)
    let skipped = JournalRecord(job: "build", outcome: .skipped, fingerprint: 0)
    #expect(ran.started)
    #expect(!never.started)
    #expect(!skipped.started)
  }

  @Test func aChangedCommandSaysSo() throws {
    let graph = try graph()
    var check = buildCheck(graph)
    let edited = try self.graph(manifest.replacingOccurrences(of: "cc -o app", with: "cc -O2 -o app"))
    check.fingerprint = edited.fingerprints()[check.job]
    #expect(check.decision(in: edited) == .runs(.changed([.command])))
  }

  @Test func anInputAddedRemovedOrEditedSaysWhich() throws {
    let graph = try graph()
    let added = sources + [file("src/c.c", "c")]
    #expect(
      buildCheck(graph, inputs: added).decision(in: graph)
        == .runs(.inputChanged(FileDifference(change: .added, path: "src/c.c", count: 1))))
    #expect(
      buildCheck(graph, inputs: [sources[1]]).decision(in: graph)
        == .runs(.inputChanged(FileDifference(change: .removed, path: "src/a.c", count: 1))))
    let edited = [file("src/a.c", "e"), file("src/b.c", "f")]
    let decision = buildCheck(graph, inputs: edited).decision(in: graph)
    #expect(decision == .runs(.inputChanged(FileDifference(change: .changed, path: "src/a.c", count: 2))))
    #expect(decision.text(in: graph) == "input src/a.c changed (and 1 more)")
    #expect(decision.code == "input-changed")
  }

  @Test func aRenamedInputIsARemovalAndAnAddition() throws {
    let graph = try graph()
    let renamed = [sources[1], FileRecord(path: "src/z.c", kind: .file, digest: sources[0].digest)]
    let decision = buildCheck(graph, inputs: renamed).decision(in: graph)
    #expect(decision == .runs(.inputChanged(FileDifference(change: .removed, path: "src/a.c", count: 2))))
  }

  @Test func changedInputsWithoutTheirListingStillRun() throws {
    let graph = try graph()
    let decision = buildCheck(graph, inputs: [file("src/a.c", "e")], listing: .some(nil)).decision(in: graph)
    #expect(decision == .runs(.inputsChanged))
  }

  @Test func anOutputDeletedEditedOrAddedRuns() throws {
    let graph = try graph()
    #expect(
      buildCheck(graph, outputs: snapshot([], unmatched: [0])).decision(in: graph) == .runs(.outputMissing("app")))
    let edited = buildCheck(graph, outputs: snapshot([file("app", "2")])).decision(in: graph)
    #expect(edited == .runs(.outputChanged(FileDifference(change: .changed, path: "app", count: 1))))
    #expect(edited.text(in: graph) == "output app changed")
    let extra = buildCheck(graph, outputs: snapshot(app + [file("app/x", "3")])).decision(in: graph)
    #expect(extra.code == "output-added")
  }

  /// More outputs than a line lists are recorded by their digest; their listing is read only
  /// when the outputs now differ from it, to say which one changed, and one that is gone
  /// still makes the job run.
  @Test func manyOutputsAreRecordedByTheirDigestAndTheirListingIsReadOnlyWhenTheyDiffer() throws {
    let graph = try graph()
    let many = (0...RecordedOutputs.listedLimit).map { file("app/\(1000 + $0)", "1") }
    #expect(RecordedOutputs(snapshot(app)) == .listed(app))
    #expect(RecordedOutputs(snapshot(many)) == .kept(digest: snapshot(many).digest))
    var record = try #require(buildCheck(graph).record)
    record.files!.outputs = .kept(digest: snapshot(many).digest)
    var reads: [String] = []
    func check(_ outputs: [FileRecord], kept: FileListing?) -> RunDecision {
      var check = buildCheck(graph, outputs: snapshot(outputs), record: record)
      check.recordedOutputs = UpToDateCheck.recordedOutputs(of: record, now: check.outputs) { digest in
        reads.append(digest)
        return kept
      }
      return check.decision(in: graph)
    }
    #expect(check(many, kept: nil) == .upToDate)
    #expect(reads.isEmpty, "outputs with the recorded digest are the recorded ones")

    var edited = many
    edited[5] = file(edited[5].path, "2")
    #expect(
      check(edited, kept: FileListing(many))
        == .runs(.outputChanged(FileDifference(change: .changed, path: "app/1005", count: 1))))
    #expect(reads == [snapshot(many).digest])

    let gone = check(edited, kept: nil)
    #expect(gone == .runs(.outputsChanged))
    #expect(gone.text(in: graph) == "its outputs changed")
    #expect(gone.code == "output-changed")
  }

  /// `test`'s check against a record of its success on `app` and build's result then, with
  /// its inputs now `inputs` and build's result in this run `result`.
  private func testCheck(_ graph: JobGraph, inputs: [FileRecord]? = nil, build result: JobResult) -> UpToDateCheck {
    let test = graph.job(named: "test")!
    let fingerprint = graph.fingerprints()[test]
    let log = [file("test.log", "9")]
    var record = JournalRecord(job: "test", outcome: .succeeded, fingerprint: fingerprint.value, parts: fingerprint.parts)
    record.files = RecordedFiles(
      inputs: snapshot(app).digest, outputs: .listed(log), result: snapshot(log).digest,
      dependencies: ["build": snapshot(app).digest])
    return UpToDateCheck(
      job: test, record: record, fingerprint: fingerprint, inputs: snapshot(inputs ?? app), outputs: snapshot(log),
      recordedInputs: FileListing(app), dependencyResults: [result])
  }

  @Test func aDependencyWhoseOutputsCameOutIdenticalLeavesItsDependentUpToDate() throws {
    let graph = try graph()
    let build = graph.job(named: "build")!
    func check(_ result: JobResult) -> RunDecision { testCheck(graph, build: result).decision(in: graph) }
    // build ran again and wrote the same bytes: early cutoff.
    #expect(check(.unchanged(snapshot(app).digest)) == .upToDate)
    #expect(check(.unchanged("other")) == .runs(.dependencyResultChanged(build, hasOutputs: true)))
    #expect(check(.unchanged("other")).text(in: graph) == "build's outputs changed")
    // Under --dry-run, build would run: whether test does depends on what build writes.
    #expect(check(.willRun(hasOutputs: true)) == .runs(.dependencyMayChange(build)))
    #expect(check(.willRun(hasOutputs: true)).text(in: graph) == "if build's outputs change")
  }

  @Test func aDependencyWithoutOutputsThatRanMakesItsDependentRunAndItsFingerprintIsRecorded() throws {
    let graph = try graph()
    let stamp = graph.job(named: "stamp")!
    let after = graph.job(named: "after")!
    let fingerprint = graph.fingerprints()[after]
    let x = [file("x", "x")]
    let check = UpToDateCheck(
      job: after, record: nil, fingerprint: fingerprint, inputs: snapshot(x), outputs: snapshot([]),
      recordedInputs: nil, dependencyResults: [.ran(recorded: "stamp-fingerprint")])
    let recorded = check.recordedFiles(outputs: snapshot([]), in: graph)
    #expect(recorded.dependencies == ["stamp": "stamp-fingerprint"])
    var record = JournalRecord(job: "after", outcome: .succeeded, fingerprint: fingerprint.value, parts: fingerprint.parts)
    record.files = recorded
    var next = check
    next.record = record
    #expect(next.decision(in: graph) == .runs(.dependencyRan(stamp)))
    // Once stamp no longer runs (up to date, or resumed) it stands for its fingerprint.
    next.dependencyResults = [.unchanged("stamp-fingerprint")]
    #expect(next.decision(in: graph) == .upToDate)
  }

  @Test func aJobWithoutOutputsStandsForItsFingerprintWhichItsInputsChange() throws {
    let graph = try graph()
    let stamp = graph.job(named: "stamp")!
    let fingerprint = graph.fingerprints()[stamp]
    func result(_ version: String) -> JobResult {
      UpToDateCheck(
        job: stamp, record: nil, fingerprint: fingerprint, inputs: snapshot([file("VERSION", version)]),
        outputs: snapshot([]), recordedInputs: nil, dependencyResults: []
      ).resultWhenUpToDate(in: graph)
    }
    #expect(result("1") == result("1"))
    #expect(result("1") != result("2"))
  }

  @Test func aJobsResultWithOutputsIsTheirContent() throws {
    let graph = try graph()
    let check = buildCheck(graph)
    #expect(check.resultWhenUpToDate(in: graph) == .unchanged(snapshot(app).digest))
    #expect(check.recordedFiles(outputs: snapshot(app), in: graph).result == snapshot(app).digest)
  }

  @Test func anInputOrOutputThatCannotBeReadRunsTheJobEvenWhenItsListingIsUnchanged() throws {
    let graph = try graph()
    let secret = FileRecord(path: "src/secret.c", kind: .unreadable, digest: "")
    let inputs = sources + [secret]
    // Recorded unreadable, and unreadable still: what it holds may have changed all the same.
    let check = buildCheck(graph, inputs: inputs, listing: inputs)
    var recorded = check
    recorded.record?.files?.inputs = snapshot(inputs).digest
    #expect(recorded.decision(in: graph) == .runs(.unreadableFile("src/secret.c", isInput: true)))
    #expect(recorded.decision(in: graph).text(in: graph) == "input src/secret.c cannot be read")
    let closed = [FileRecord(path: "app", kind: .unreadable, digest: "")]
    var output = buildCheck(graph, outputs: snapshot(closed))
    output.record?.files?.outputs = .listed(closed)
    #expect(output.decision(in: graph) == .runs(.unreadableFile("app", isInput: false)))
    #expect(output.decision(in: graph).code == "output-unreadable")
  }

  @Test func underDryRunAnInputThatARunningDependencyMayWriteAgainWaitsOnWhatItWrites() throws {
    let graph = try graph()
    let build = graph.job(named: "build")!
    // `app` was edited by hand: build runs again (its output changed) and may write back what test recorded.
    let edited = [file("app", "2")]
    var check = testCheck(graph, inputs: edited, build: .willRun(hasOutputs: true))
    check.filesDependenciesMayRewrite = ["app"]
    #expect(check.decision(in: graph) == .runs(.dependencyMayChange(build)))
    // An input no dependency writes that changed makes it run whatever build writes.
    let withNote = [file("app", "2"), file("note", "n")]
    check.inputs = snapshot(withNote)
    #expect(check.decision(in: graph) == .runs(.inputChanged(FileDifference(change: .added, path: "note", count: 1))))
    // With no dependency to wait on after all, the edited input is the reason.
    check.inputs = snapshot(edited)
    check.dependencyResults = [.unchanged(snapshot(app).digest)]
    #expect(check.decision(in: graph) == .runs(.inputChanged(FileDifference(change: .changed, path: "app", count: 1))))
    check.dependencyResults = [.willRun(hasOutputs: true)]
    // Without the dry run's knowledge, the edited input is the reason.
    check.inputs = snapshot(edited)
    check.filesDependenciesMayRewrite = []
    #expect(check.decision(in: graph) == .runs(.inputChanged(FileDifference(change: .changed, path: "app", count: 1))))
  }
}
