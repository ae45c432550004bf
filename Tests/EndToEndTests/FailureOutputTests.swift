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

  /// The lines of the one journal in `folder`, each parsed.
  static func journalLines(in folder: Scratch) throws -> [[String: Any]] {
    let runs = try FileManager.default.contentsOfDirectory(atPath: folder.path(".oprun/runs"))
    let file = try #require(runs.count == 1 ? runs.first : nil, "journals: \(runs)")
    let text = try #require(folder.read(".oprun/runs/" + file))
    return try text.split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  /// The journal line of `job`.
  static func record(of job: String, in folder: Scratch) throws -> [String: Any] {
    try #require(try journalLines(in: folder).first { $0.string("type") == "job" && $0.string("job") == job })
  }

  @Test func aFailedJobsJournalLineKeepsExactlyItsLast50LinesOfTheLinesItPrinted() throws {
    let folder = try FixtureTests.scratchWithFixture("failing-test.yaml")
    let run = try runOprun(["failing-test.yaml"], in: folder)
    #expect(run.status == 1, "\(run.stderr)")

    let failed = try Self.record(of: "flaky-test", in: folder)
    #expect(failed.string("outcome") == "failed")
    #expect(failed["output"] as? [String] == (151...199).map { "check \($0) of 199 ok" } + ["assertion failed: expected 3, got 4"])
    #expect(failed.int("output_lines") == 200)
    // A job that succeeded keeps none.
    let build = try Self.record(of: "build", in: folder)
    #expect(build["output"] == nil && build["output_lines"] == nil)
  }

  @Test func aTimedOutJobsJournalLineKeepsWhatItPrintedBeforeItsTimeout() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        hangs: {command: 'echo "waiting for the lock"; exec sleep 60', timeout: 0.3s}
        quiet: {command: 'exit 3'}
      """)
    let run = try runOprun(["-k", "jobs.yaml"], in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    let hangs = try Self.record(of: "hangs", in: folder)
    #expect(hangs.string("outcome") == "timed-out")
    #expect(hangs["output"] as? [String] == ["waiting for the lock"])
    #expect(hangs.int("output_lines") == 1)
    // A failure that printed nothing says so.
    let quiet = try Self.record(of: "quiet", in: folder)
    #expect(quiet["output"] as? [String] == [])
    #expect(quiet.int("output_lines") == 0)
  }

  /// A job that prints 60 lines, the last with markup in it, then fails.
  static let markupInOutput = """
    jobs:
      build: {command: echo compiled}
      flaky-test:
        command: 'for i in $(seq 1 59); do echo "check $i ok"; done; echo "assertion failed: <b>3</b> & \\"4\\""; exit 4'
        dependencies: [build]
    """

  @Test func theReportsFailurePanelAndDetailsShowAFailedJobsLastLinesAsText() throws {
    let folder = try Scratch()
    try folder.manifest(Self.markupInOutput)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 1, "\(run.stderr)")

    let page = try ReportTests.reportPage(in: folder)
    #expect(page.html.contains("<section id=\"failures\">"), "the failure panel is shown")
    let failure = try #require(page.markup(from: "<li data-job=\"flaky-test\">", to: "</li>"))
    // Its last ten lines, whole (no scrolling hides the last), as the run's summary shows them.
    let lastLine = "assertion failed: &lt;b&gt;3&lt;/b&gt; &amp; \"4\""
    let tenLines = (51...59).map { "check \($0) ok\n" }.joined() + lastLine
    #expect(
      failure.hasSuffix(
        "<pre class=\"output\"><span class=\"earlier\">… 50 earlier lines\n</span>" + tenLines + "</pre></li>"),
      "\(failure)")
    #expect(!page.html.contains("<b>"))
    #expect(page.markup(from: "<li data-job=\"build\">", to: "</li>") == nil, "build did not fail")

    // A link to the job opens its details with the same lines.
    let linked = DumpedPage(
      html: try HeadlessChromium.dumpDOM(of: folder.path("report.html"), fragment: "job=flaky-test", in: folder))
    // There, the 50 lines the report keeps, as the journal does.
    let details = try #require(linked.markup(from: "<div id=\"details-body\">", to: "</pre>"))
    #expect(
      details.contains(
        "<strong>Last lines of output</strong><pre class=\"output scrolled\"><span class=\"earlier\">"
          + "… 10 earlier lines\n</span>check 11 ok\n"), "\(details)")
    #expect(details.hasSuffix(tenLines + "</pre>"))
  }
}
