import OprunCore
import Testing

@testable import OprunRuntime

/// The part that follows each job's files: a decision only once both snapshots are in, a
/// missing output failing the attempt, what a finished transition carries, and the result
/// its dependents compare.
@Suite struct FileTrackerTests {
  private let graph = try! ManifestLoader.graph(
    from: SourceText(
      path: "/work/jobs.yaml",
      text: """
        jobs:
          build: {command: build, inputs: [src], outputs: [app]}
          test: {command: test, dependencies: [build], inputs: [app]}
        """), defaultMaxConcurrent: 4
  ).get()

  private func tracker(records: [String: JournalRecord] = [:]) -> FileTracker {
    let tracking = FileTracking(
      checker: FakeFileChecker(clock: ManualClock()), records: records, recordedInputs: { _ in nil }, force: false)
    return FileTracker(tracking: tracking, fingerprints: graph.fingerprints())
  }

  private var build: JobID { graph.job(named: "build")! }

  private func finished(_ job: JobID, _ outcome: Outcome) -> Transition {
    Transition(job: job, queue: 0, from: .executing, to: .finished, outcome: outcome)
  }

  @Test func theDecisionComesOnceBothSnapshotsAreIn() {
    var files = tracker()
    files.beginCheck(of: build)
    let afterInputs = files.received(.inputs(FakeFileChecker.file("src", "v1")), of: build, in: graph)
    #expect(afterInputs == nil)
    let decision = files.received(.outputs(FakeFileChecker.file("app", "bin")), of: build, in: graph)
    #expect(decision == .runs(.noRecord))
  }

  @Test func aMissingOutputFailsTheAttemptAndIsCarriedByItsTransition() {
    var files = tracker()
    files.beginCheck(of: build)
    _ = files.received(.inputs(FakeFileChecker.file("src", "v1")), of: build, in: graph)
    _ = files.received(.outputs(FakeFileChecker.file("app", "bin")), of: build, in: graph)
    let awaits = files.awaitsOutputs(of: build, attempt: 1, termination: .exited(0))
    #expect(awaits)
    let nothing = FileSnapshot(files: [], unmatchedPatterns: [0], digest: "none")
    _ = files.afterAttempt(.inputsAfterAttempt(FakeFileChecker.file("src", "v1"), attempt: 1), of: build, in: graph)
    let ended = files.afterAttempt(.outputsAfterAttempt(nothing, attempt: 1), of: build, in: graph)
    #expect(ended?.succeeded == false && ended?.termination == .exited(0))
    var transition = finished(build, .failed)
    files.annotate(&transition)
    #expect(transition.missingOutputs == ["app"] && transition.files == nil)
    #expect(files.result(of: build) == .ran(recorded: ""))
  }

  @Test func aSucceededJobCarriesItsFilesAndItsOutputsAreItsResult() {
    var files = tracker()
    files.beginCheck(of: build)
    _ = files.received(.inputs(FakeFileChecker.file("src", "v1")), of: build, in: graph)
    _ = files.received(.outputs(FakeFileChecker.file("app", "old")), of: build, in: graph)
    let awaits = files.awaitsOutputs(of: build, attempt: 1, termination: .exited(0))
    let ofAnotherAttempt = files.afterAttempt(
      .outputsAfterAttempt(FakeFileChecker.file("app", "new"), attempt: 2), of: build, in: graph)
    let outputsAlone = files.afterAttempt(
      .outputsAfterAttempt(FakeFileChecker.file("app", "new"), attempt: 1), of: build, in: graph)
    let withInputs = files.afterAttempt(
      .inputsAfterAttempt(FakeFileChecker.file("src", "v1"), attempt: 1), of: build, in: graph)
    #expect(awaits && ofAnotherAttempt == nil && outputsAlone == nil && withInputs?.succeeded == true)
    var transition = finished(build, .succeeded)
    files.annotate(&transition)
    #expect(transition.files != nil && transition.missingOutputs.isEmpty)
    #expect(files.result(of: build) == .unchanged(FakeFileChecker.file("app", "new").digest))
  }

  /// An edit undone while the job ran (`git stash` during the build, `stash pop` after): the
  /// outputs may be built from what the start did not hash, so the record says which input.
  @Test func anInputNotAsHashedAtTheStartWhenTheJobSucceedsIsRecordedAsChangedWhileRunning() {
    var files = tracker()
    files.beginCheck(of: build)
    _ = files.received(.inputs(FakeFileChecker.file("src", "B")), of: build, in: graph)
    _ = files.received(.outputs(FakeFileChecker.file("app", "old")), of: build, in: graph)
    _ = files.awaitsOutputs(of: build, attempt: 1, termination: .exited(0))
    _ = files.afterAttempt(.inputsAfterAttempt(FakeFileChecker.file("src", "A"), attempt: 1), of: build, in: graph)
    let ended = files.afterAttempt(
      .outputsAfterAttempt(FakeFileChecker.file("app", "fromA"), attempt: 1), of: build, in: graph)
    #expect(ended?.succeeded == true)
    var transition = finished(build, .succeeded)
    files.annotate(&transition)
    #expect(transition.files?.recorded.inputChangedWhileRunning == "src")
    #expect(transition.files?.recorded.inputs == FakeFileChecker.file("src", "B").digest)
  }

  @Test func aJobWithoutCheckedFilesTakesItsFingerprintAsItsResult() {
    var files = tracker()
    let test = graph.job(named: "test")!
    var transition = finished(test, .succeeded)
    files.annotate(&transition)
    #expect(files.result(of: test) == .ran(recorded: graph.fingerprints()[test].text))
  }
}
