import Foundation
import Testing

/// `oprun log` (SPEC §9): the past runs of a manifest and the jobs of one, from the journals
/// runs leave in `.oprun/runs/`.
@Suite struct LogTests {
  static let failing = """
    jobs:
      a: {command: 'true'}
      b: {command: 'false', dependencies: [a]}
    """
  static let passing = """
    jobs:
      a: {command: 'true'}
      b: {command: 'true', dependencies: [a]}
    """

  /// A journal written by hand for a run of `jobs.yaml` killed after its first job: no end line.
  static let killedJournal = """
    {"type":"header","format":1,"run":"20260101T000000-7","manifest":"/elsewhere/jobs.yaml","start":1767225600.25,\
    "oprun":"0.1.0","args":[],"targets":[]}
    {"type":"job","job":"a","outcome":"succeeded","exit_code":0,"signal":null,"start":1767225600.5,"duration":1.5,\
    "attempt":1,"fingerprint":"0123456789abcdef"}

    """

  /// Runs the failing manifest, then the passing one; returns the folder.
  static func twoRuns() throws -> Scratch {
    let folder = try Scratch()
    try folder.manifest(failing)
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 1)
    try folder.manifest(passing)
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 0)
    return folder
  }

  /// The list `oprun log --json` prints, parsed.
  static func runList(in folder: Scratch, _ arguments: [String] = []) throws -> [[String: Any]] {
    let log = try runOprun(["log", "--json"] + arguments, in: folder)
    #expect(log.status == 0, "\(log.stderr)")
    return try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
  }

  static func writeJournal(_ text: String, run: String, in folder: Scratch) throws {
    try FileManager.default.createDirectory(atPath: folder.path(".oprun/runs"), withIntermediateDirectories: true)
    try folder.write(".oprun/runs/\(run).ndjson", text)
  }

  @Test func logListsEachRunOldestFirstWithItsCountsAndExitStatus() throws {
    let folder = try Self.twoRuns()
    let runs = try Self.runList(in: folder)
    let ids = runs.compactMap { $0.string("run") }
    let log = try runOprun(["log"], in: folder)
    #expect(log.status == 0)
    #expect(log.stderr.isEmpty, "\(log.stderr)")
    let lines = log.stdout.split(separator: "\n")
    #expect(lines.count == 3, "\(log.stdout)")
    #expect(lines.first?.hasPrefix("RUN") == true)
    let rows = lines.dropFirst()
    #expect(rows.map { $0.split(separator: " ").first.map(String.init) } == ids)
    #expect(rows.first?.hasSuffix("exit 1  1 succeeded · 1 failed") == true, "\(log.stdout)")
    #expect(rows.last?.hasSuffix("exit 0  2 succeeded") == true, "\(log.stdout)")
    for row in rows { #expect(row.contains(#/ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /#), "\(row)") }
  }

  @Test func logJSONIsAListOfRunsWithTheirFields() throws {
    let folder = try Self.twoRuns()
    let runs = try Self.runList(in: folder)
    #expect(runs.count == 2)
    #expect(runs.map { $0.int("exit_code") } == [1, 0])
    let starts = runs.compactMap { $0["start"] as? Double }
    #expect(starts.count == 2 && starts[0] <= starts[1])
    for run in runs {
      #expect(run.string("run")?.isEmpty == false)
      #expect(run["duration"] is Double)
      let counts = try #require(run["counts"] as? [String: Any])
      #expect(Set(counts.keys) == ["succeeded", "failed", "cancelled", "skipped", "timed-out"])
    }
    #expect((runs[0]["counts"] as? [String: Any])?.int("failed") == 1)
    #expect((runs[1]["counts"] as? [String: Any])?.int("succeeded") == 2)
    #expect(try Self.runList(in: folder, ["jobs.yaml"]).count == 2)
  }

  @Test func logOfARunIDShowsItsJobsAndItsJSONHasHeaderJobsAndEnd() throws {
    let folder = try Scratch()
    try folder.manifest(Self.failing)
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 1)
    let id = try #require(try Self.runList(in: folder).first?.string("run"))

    let jobs = try runOprun(["log", id], in: folder)
    #expect(jobs.status == 0, "\(jobs.stderr)")
    let lines = jobs.stdout.split(separator: "\n")
    #expect(lines.first?.hasPrefix("run \(id) · started ") == true, "\(jobs.stdout)")
    #expect(lines.contains { $0.hasPrefix("a ") && $0.contains("succeeded") && $0.contains("exit 0") })
    #expect(lines.contains { $0.hasPrefix("b ") && $0.contains("failed") && $0.contains("exit 1") })
    #expect(lines.last?.hasPrefix("── summary: 2 jobs · 1 succeeded · 1 failed · ") == true, "\(jobs.stdout)")
    #expect(lines.last?.hasSuffix(" wall · exit 1") == true)

    for arguments in [["log", "--json", id], ["log", "jobs.yaml", id, "--json"]] {
      let json = try runOprun(arguments, in: folder)
      #expect(json.status == 0, "\(json.stderr)")
      let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
      let header = try #require(object["header"] as? [String: Any])
      #expect(header.string("type") == "header" && header.string("run") == id)
      let jobLines = try #require(object["jobs"] as? [[String: Any]])
      #expect(jobLines.map { $0.string("job") } == ["a", "b"])
      #expect(jobLines.allSatisfy { $0.string("fingerprint")?.count == 16 })
      let end = try #require(object["end"] as? [String: Any])
      #expect(end.int("exit_code") == 1)
    }
  }

  @Test func aRunWithoutAnEndLineShowsAsNotFinished() throws {
    let folder = try Scratch()
    try folder.manifest(Self.passing)
    try Self.writeJournal(Self.killedJournal, run: "20260101T000000-7", in: folder)
    let log = try runOprun(["log"], in: folder)
    #expect(log.status == 0)
    let row = try #require(log.stdout.split(separator: "\n").last)
    #expect(row.hasPrefix("20260101T000000-7 "))
    #expect(row.hasSuffix("did not finish  1 succeeded"), "\(log.stdout)")
    let run = try #require(try Self.runList(in: folder).first)
    #expect(run.isNull("exit_code") && run.isNull("duration"))
    #expect((run["counts"] as? [String: Any])?.int("succeeded") == 1)

    let jobs = try runOprun(["log", "20260101T000000-7"], in: folder)
    #expect(jobs.stdout.hasSuffix("── summary: 1 job · 1 succeeded · did not finish\n"), "\(jobs.stdout)")
    let json = try runOprun(["log", "--json", "20260101T000000-7"], in: folder)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(object.isNull("end"))
  }

  @Test func anUnknownRunIDExitsTwoSayingWhereItLookedAndWhatItMayBe() throws {
    let folder = try Scratch()
    try folder.manifest(Self.passing)
    try Self.writeJournal(Self.killedJournal, run: "20260101T000000-7", in: folder)
    let log = try runOprun(["log", "20260101T000000-8"], in: folder)
    #expect(log.status == 2)
    #expect(log.stdout.isEmpty)
    #expect(
      log.stderr == "oprun: error: no run '20260101T000000-8' in ./.oprun/runs nor in the index of runs "
        + "\(folder.stateHome)/oprun/journals (did you mean '20260101T000000-7'?); 'oprun log' lists the runs\n")
    // With a manifest named, only its folder is looked in.
    let named = try runOprun(["log", "jobs.yaml", "20260101T000000-8"], in: folder)
    #expect(named.status == 2)
    #expect(
      named.stderr == "oprun: error: no run '20260101T000000-8' in ./.oprun/runs (did you mean '20260101T000000-7'?); "
        + "'oprun log jobs.yaml' lists the runs\n")
  }

  @Test func anUnknownManifestExitsTwo() throws {
    let folder = try Scratch()
    for arguments in [["log", "missing.yaml"], ["log"], ["log", "missing.yaml", "20260101T000000-7"]] {
      let log = try runOprun(arguments, in: folder)
      #expect(log.status == 2)
      let manifest = arguments.count == 1 ? "jobs.yaml" : "missing.yaml"
      #expect(log.stderr == "oprun: error: no manifest '\(manifest)': No such file or directory\n", "\(log.stderr)")
    }
  }

  @Test func aManifestWithoutRunsSaysSoAndExitsZero() throws {
    let folder = try Scratch()
    try folder.manifest(Self.passing)
    let log = try runOprun(["log"], in: folder)
    #expect(log.status == 0)
    #expect(log.stdout == "no run of jobs.yaml is recorded in ./.oprun/runs yet\n")
    #expect(try runOprun(["log", "--json"], in: folder).stdout == "[]\n")
  }

  @Test func aJournalWithAJunkLineGivesOneWarningAndIsStillListed() throws {
    let folder = try Scratch()
    try folder.manifest(Self.passing)
    let lines = Self.killedJournal.split(separator: "\n")
    try Self.writeJournal(lines[0] + "\n{junk\n" + lines[1] + "\n", run: "20260101T000000-7", in: folder)
    let log = try runOprun(["log"], in: folder)
    #expect(log.status == 0)
    let warnings = log.stderr.split(separator: "\n")
    #expect(warnings.count == 1, "\(log.stderr)")
    #expect(warnings.first?.hasPrefix("oprun: warning: ./.oprun/runs/20260101T000000-7.ndjson: skipped 1 line") == true)
    #expect(log.stdout.contains("20260101T000000-7 "), "\(log.stdout)")
    #expect(log.stdout.hasSuffix("did not finish  1 succeeded\n"), "\(log.stdout)")
  }

  @Test func aJournalThatCannotBeReadExitsTwo() throws {
    let folder = try Scratch()
    try folder.manifest(Self.passing)
    try FileManager.default.createDirectory(
      atPath: folder.path(".oprun/runs/20260101T000000-9.ndjson"), withIntermediateDirectories: true)
    let log = try runOprun(["log", "20260101T000000-9"], in: folder)
    #expect(log.status == 2)
    #expect(
      log.stderr == "oprun: error: cannot read the journal ./.oprun/runs/20260101T000000-9.ndjson: not a regular file\n"
    )
  }
}
