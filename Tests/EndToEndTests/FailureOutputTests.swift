import Foundation
import Testing

/// A failure's cause is kept besides the terminal (SPEC §2, §9): the lines a job printed are in
/// the `--events` file, and a failed job's last lines in its journal record, which the report
/// and `oprun log RUN-ID` show.
@Suite struct FailureOutputTests {
  /// A job that prints to both of its pipes, then one that prints and fails.
  static let twoStreams = """
    jobs:
      build: {command: 'echo compiled; echo "cc: note" >&2'}
      flaky-test:
        command: 'echo "running 3 checks"; echo "assertion failed: expected 3, got 4"; exit 4'
        dependencies: [build]
    """

  @Test func theEventsFileHasAnOutputEventForEachLineAJobPrintedBetweenItsTransitions() throws {
    let folder = try Scratch()
    try folder.manifest(Self.twoStreams)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    let log = folder.events
    expectStreamContract(log)

    // A job's two streams share one pipe, so that they keep the order the job wrote them in.
    let lines = log.named("output").map { [$0.string("job"), $0.string("stream"), $0.string("text")] }
    #expect(
      lines == [
        ["build", "stdout", "compiled\n"], ["build", "stdout", "cc: note\n"],
        ["flaky-test", "stdout", "running 3 checks\n"], ["flaky-test", "stdout", "assertion failed: expected 3, got 4\n"],
      ])
    // In order with the transitions: between the job's executing and its finished.
    let kinds = log.events.filter { $0.string("job") == "flaky-test" }.map { event in
      event.string("event") == "output" ? "output" : event.string("to") ?? "?"
    }
    #expect(kinds == ["ready", "executing", "output", "output", "finished"])
  }

  @Test func eventsOutputNoneLeavesTheOutputEventsOut() throws {
    let folder = try Scratch()
    try folder.manifest(Self.twoStreams)
    let run = try runOprun(runArguments(["--events-output", "none"]), in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    let log = folder.events
    expectStreamContract(log)
    #expect(log.named("output").isEmpty)
    #expect(log.outcome(of: "flaky-test") == "failed")
    // The terminal still shows every line.
    #expect(run.stdout.contains("flaky-test | assertion failed: expected 3, got 4"))

    let all = try runOprun(runArguments(["--events-output", "all"]), in: folder)
    #expect(all.status == 1, "\(all.stderr)")
    #expect(folder.events.named("output").count == 4)
  }

  @Test func eventsOutputWithoutEventsOrWithAnUnknownWordIsAUsageError() throws {
    let folder = try Scratch()
    try folder.manifest(Self.twoStreams)
    let alone = try runOprun(["--events-output", "none"], in: folder)
    #expect(alone.status == 2)
    #expect(alone.stderr.contains("--events-output says what the event stream carries: give --events PATH too"))
    let unknown = try runOprun(runArguments(["--events-output", "some"]), in: folder)
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("--events-output"), "\(unknown.stderr)")
    #expect(!folder.exists(".oprun"), "nothing ran")
  }
}
