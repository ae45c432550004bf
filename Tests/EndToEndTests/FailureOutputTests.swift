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
        ["flaky-test", "stdout", "running 3 checks\n"],
        ["flaky-test", "stdout", "assertion failed: expected 3, got 4\n"],
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
    #expect(
      failed["output"] as? [String] == (151...199).map { "check \($0) of 199 ok" } + [
        "assertion failed: expected 3, got 4"
      ])
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

  @Test func aReportOfEventsWithoutOutputTakesTheFailuresLastLinesFromTheRunsJournal() throws {
    let folder = try FixtureTests.scratchWithFixture("failing-test.yaml")
    let run = try runOprun(runArguments(["--events-output", "none"], manifest: "failing-test.yaml"), in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    #expect(folder.events.named("output").isEmpty)

    // From another folder, through the index of runs.
    let elsewhere = try Scratch()
    let report = try runOprun(
      ["report", folder.path(eventsFile), "--html", "report.html"], in: elsewhere,
      environment: ["XDG_STATE_HOME": folder.stateHome])
    #expect(report.status == 0, "\(report.stderr)")
    let page = DumpedPage(html: try HeadlessChromium.dumpDOM(of: elsewhere.path("report.html"), in: elsewhere))
    #expect(page.rootAttribute("data-ready") == "1")
    let failure = try #require(page.markup(from: "<li data-job=\"flaky-test\">", to: "</li>"))
    #expect(failure.hasSuffix("check 199 of 199 ok\nassertion failed: expected 3, got 4</pre></li>"), "\(failure)")
    #expect(
      page.text(ofElementWithID: "summary-note")
        == "The events file holds no output: the failures' last lines are their journal's.")

    // Without the journal, the page has no lines, and says nothing of them.
    try FileManager.default.removeItem(atPath: folder.path(".oprun"))
    let without = try runOprun(
      ["report", folder.path(eventsFile), "--html", "report.html"], in: elsewhere,
      environment: ["XDG_STATE_HOME": folder.stateHome])
    #expect(without.status == 0, "\(without.stderr)")
    let bare = DumpedPage(html: try HeadlessChromium.dumpDOM(of: elsewhere.path("report.html"), in: elsewhere))
    #expect(!bare.html.contains("<pre class=\"output\">"))
    #expect(bare.text(ofElementWithID: "summary-note")?.contains("journal") != true)
  }

  /// Runs `jobs/failing-test.yaml` in `jobs/` of a folder, as a repository's root holds it;
  /// returns the folder and the RUN-ID.
  static func failingRunInJobsFolder() throws -> (root: Scratch, run: String) {
    let root = try Scratch()
    try FileManager.default.createDirectory(atPath: root.path("jobs"), withIntermediateDirectories: false)
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent("jobs/failing-test.yaml").path,
      toPath: root.path("jobs/failing-test.yaml"))
    let run = try runOprun(["jobs/failing-test.yaml", "--events", eventsFile], in: root)
    #expect(run.status == 1, "\(run.stderr)")
    #expect(run.stderr.isEmpty, "\(run.stderr)")
    let id = try #require(root.events.named("run-started").first?.string("run"))
    return (root, id)
  }

  /// What `oprun log RUN-ID` shows of a failure: the last 50 lines its journal kept.
  static let loggedFailure =
    "── flaky-test: failed (exit 4)\n    … 150 earlier lines\n"
    + (151...199).map { "    check \($0) of 199 ok\n" }.joined() + "    assertion failed: expected 3, got 4\n"
    + "── summary: 2 jobs · 1 succeeded · 1 failed · "

  @Test func logOfARunIDFromTheRootAndFromAnyOtherFolderFindsTheRunAndShowsTheFailuresLastLines() throws {
    let (root, id) = try Self.failingRunInJobsFolder()
    let index = root.stateHome + "/oprun/journals"
    let journal = AbsolutePathText.resolved(root.path("jobs")) + "/.oprun/runs/\(id).ndjson"
    #expect(try String(contentsOfFile: index, encoding: .utf8) == "\(id)\t\(journal)\n")
    #expect(try FileManager.default.attributesOfItem(atPath: index)[.posixPermissions] as? Int == 0o600)
    let folder = root.stateHome + "/oprun"
    #expect(try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int == 0o700)

    let elsewhere = try Scratch()
    for (folder, name) in [(root, "the root"), (elsewhere, "another folder")] {
      let log = try runOprun(["log", id], in: folder, environment: ["XDG_STATE_HOME": root.stateHome])
      #expect(log.status == 0, "from \(name): \(log.stderr)")
      #expect(log.stdout.hasPrefix("run \(id) · started "), "\(log.stdout)")
      #expect(log.stdout.contains(" · \(AbsolutePathText.resolved(root.path("jobs")))/failing-test.yaml · "))
      #expect(log.stdout.contains("\n" + Self.loggedFailure), "from \(name): \(log.stdout)")
    }
    // Without the index (another user's state folder, say), the run is only found beside its manifest.
    let alone = try runOprun(["log", id], in: elsewhere)
    #expect(alone.status == 2)
    #expect(
      alone.stderr
        == "oprun: error: no run '\(id)' in ./.oprun/runs nor in the index of runs \(elsewhere.stateHome)/oprun/journals; "
        + "'oprun log' lists the runs\n")
  }

  /// How many bytes the index of runs grows by between two prunings of it (`RunIndex.pruningStep`).
  static let indexPruningStep = 64 << 10

  @Test func aRunWhoseJournalIsGoneIsSaidToBeGoneAndDroppedFromTheIndexWhenTheIndexGrowsPastAStep() throws {
    let (root, gone) = try Self.failingRunInJobsFolder()
    try FileManager.default.removeItem(atPath: root.path("jobs/.oprun"))
    let elsewhere = try Scratch()
    func expectGone(_ id: String, _ why: String) throws {
      let log = try runOprun(["log", id], in: elsewhere, environment: ["XDG_STATE_HOME": root.stateHome])
      #expect(log.status == 2, "\(why)")
      #expect(log.stderr.contains("no run '\(id)': the index of runs names its journal "), "\(why): \(log.stderr)")
      #expect(log.stderr.contains("/.oprun/runs/\(id).ndjson, which is gone"), "\(why): \(log.stderr)")
    }
    try expectGone(gone, "its folder was deleted")

    // A manifest with as many journals as are kept: its next run removes the oldest, and
    // leaves the index as it was but for its own line.
    let other = try Scratch()
    try other.manifest("jobs: {only: {command: 'true'}}")
    let index = root.stateHome + "/oprun/journals"
    func indexedRuns() throws -> [String] {
      try String(contentsOfFile: index, encoding: .utf8).split(separator: "\n")
        .map { $0.split(separator: "\t").first.map(String.init) ?? "" }
    }
    let first = try runOprun(
      ["jobs.yaml", "--events", eventsFile], in: other, environment: ["XDG_STATE_HOME": root.stateHome])
    #expect(first.status == 0, "\(first.stderr)")
    let pruned = try #require(other.events.named("run-started").first?.string("run"))
    let runs = other.path(".oprun/runs/")
    for sequence in 2...20 {
      try other.write(
        ".oprun/runs/20991231T000000-7-\(sequence).ndjson",
        #"{"type":"header","format":1,"run":"20991231T000000-7-\#(sequence)","manifest":"/elsewhere/jobs.yaml","#
          + #""start":4102358400,"oprun":"0.1.0","args":[],"targets":[]}"# + "\n")
    }
    let second = try runOprun(["jobs.yaml"], in: other, environment: ["XDG_STATE_HOME": root.stateHome])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(!FileManager.default.fileExists(atPath: runs + pruned + ".ndjson"), "the oldest journal was pruned")
    let indexed = try indexedRuns()
    #expect(indexed.count == 3 && indexed.prefix(2) == [gone, pruned], "\(indexed)")
    try expectGone(pruned, "it was pruned")

    // Once a run grows the index past another step, the entries of journals that are gone are dropped.
    let size = try #require(FileManager.default.attributesOfItem(atPath: index)[.size] as? Int)
    let filler = "20991231T000000-9-1\t/gone/.oprun/runs/20991231T000000-9-1.ndjson\n"
    let handle = try #require(FileHandle(forWritingAtPath: index))
    try handle.seekToEnd()
    let fillers = (Self.indexPruningStep - size) / filler.utf8.count
    try handle.write(contentsOf: Data(String(repeating: filler, count: fillers).utf8))
    try handle.close()
    let third = try runOprun(["jobs.yaml"], in: other, environment: ["XDG_STATE_HOME": root.stateHome])
    #expect(third.status == 0, "\(third.stderr)")
    let kept = try indexedRuns()
    #expect(kept.count == 2 && !kept.contains(gone) && !kept.contains(pruned), "\(kept)")
  }

  @Test func anIndexFolderEveryoneMayWriteOrAnIndexThatIsALinkIsNotUsedAndTheRunGoesOn() throws {
    let folder = try Scratch()
    try folder.manifest(Self.twoStreams)
    try FileManager.default.createDirectory(
      atPath: folder.stateHome + "/oprun", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.stateHome + "/oprun")
    let open = try runOprun(["jobs.yaml"], in: folder)
    #expect(open.status == 1)
    #expect(
      open.stderr.contains(
        "oprun: warning: this run is not in the index of runs ('\(folder.stateHome)/oprun' may be written by everyone "
          + "(mode 777)): 'oprun log "), "\(open.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder.stateHome + "/oprun/journals"))

    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.stateHome + "/oprun")
    let target = folder.path("elsewhere")
    try "".write(toFile: target, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: folder.stateHome + "/oprun/journals", withDestinationPath: target)
    let linked = try runOprun(["jobs.yaml"], in: folder)
    #expect(linked.status == 1)
    #expect(linked.stderr.contains("'\(folder.stateHome)/oprun/journals' is a symbolic link"), "\(linked.stderr)")
    #expect(folder.read("elsewhere") == "")
    #expect(linked.stdout.contains("── flaky-test: failed (exit 4)"), "the run went on")
  }

  @Test func aRunWithoutAJournalIsNotInTheIndex() throws {
    let folder = try Scratch()
    try folder.manifest(Self.twoStreams)
    #expect(try runOprun(["--no-journal", "jobs.yaml"], in: folder).status == 1)
    #expect(!FileManager.default.fileExists(atPath: folder.stateHome + "/oprun/journals"))
  }
}

/// Paths as the file system resolves them (the temporary folder may be reached through a link).
enum AbsolutePathText {
  static func resolved(_ path: String) -> String {
    URL(fileURLWithPath: path).resolvingSymlinksInPath().path
  }
}
