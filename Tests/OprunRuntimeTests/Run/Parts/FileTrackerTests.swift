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
    let ended = files.outputsSeen(nothing, of: build, attempt: 1, in: graph)
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
    let ofAnotherAttempt = files.outputsSeen(FakeFileChecker.file("app", "new"), of: build, attempt: 2, in: graph)
    let ofItsAttempt = files.outputsSeen(FakeFileChecker.file("app", "new"), of: build, attempt: 1, in: graph)
    #expect(awaits && ofAnotherAttempt == nil && ofItsAttempt?.succeeded == true)
    var transition = finished(build, .succeeded)
    files.annotate(&transition)
    #expect(transition.files != nil && transition.missingOutputs.isEmpty)
    #expect(files.result(of: build) == .unchanged(FakeFileChecker.file("app", "new").digest))
  }

  @Test func aJobWithoutCheckedFilesTakesItsFingerprintAsItsResult() {
    var files = tracker()
    let test = graph.job(named: "test")!
    var transition = finished(test, .succeeded)
    files.annotate(&transition)
    #expect(files.result(of: test) == .ran(recorded: graph.fingerprints()[test].text))
  }
}
