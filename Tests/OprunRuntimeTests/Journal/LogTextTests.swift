import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// How `oprun log` shows past runs and the jobs of one, from journals as read.
@Suite struct LogTextTests {
  static let header =
    #"{"type":"header","format":1,"run":"20260101T000000-42","manifest":"/work/jobs.yaml","start":0.5,"#
    + #""oprun":"0.1.0","args":["-k"],"targets":[]}"#
  static let build =
    #"{"type":"job","job":"build","outcome":"succeeded","exit_code":null,"signal":null,"start":0.5,"#
    + #""duration":0,"attempt":1,"fingerprint":"00000000000000aa","resumed":true}"#
  static let test =
    #"{"type":"job","job":"test","outcome":"failed","exit_code":2,"signal":null,"start":1.75,"duration":61.5,"#
    + #""attempt":1,"cpu_s":12.5,"peak_memory":1181116006,"memory_source":"process","fingerprint":"00000000000000bb"}"#
  static let serve =
    #"{"type":"job","job":"serve","outcome":"cancelled","exit_code":null,"signal":15,"start":2,"duration":0.25,"#
    + #""attempt":1,"cpu_s":0.01,"peak_memory":3145728,"memory_source":"cgroup","fingerprint":"00000000000000cc"}"#
  static let deploy =
    #"{"type":"job","job":"deploy","outcome":"skipped","exit_code":null,"signal":null,"start":3,"duration":0,"#
    + #""attempt":1,"fingerprint":"00000000000000dd"}"#
  static let end =
    #"{"type":"end","exit_code":1,"counts":{"succeeded":1,"failed":1,"cancelled":1,"skipped":1,"timed-out":0},"#
    + #""duration":3.25}"#

  static func journal(_ lines: [String], keepingLines: Bool = false) -> Journal {
    Journal.read(Array(lines.map { $0 + "\n" }.joined().utf8), keepingLines: keepingLines)
  }

  static func inUTC() {
    setenv("TZ", "UTC", 1)
    tzset()
  }

  @Test func runsAreOneRowEachWithTheirOutcomesAndExitStatus() {
    Self.inUTC()
    let runs = [
      PastRun(
        run: "r1", start: 0, duration: 83.2, exitCode: 1, counts: [.succeeded: 38, .failed: 1, .skipped: 1], resumed: 0),
      PastRun(run: "r2", start: 3600, duration: 0.5, exitCode: 0, counts: [.succeeded: 40], resumed: 36),
    ]
    #expect(
      RunHistoryText.runs(runs, manifest: "jobs.yaml", folder: "./.oprun/runs") == """
        RUN  STARTED              DURATION  STATUS  JOBS
        r1   1970-01-01 00:00:00  1m23s     exit 1  38 succeeded · 1 failed · 1 skipped
        r2   1970-01-01 01:00:00  0.50s     exit 0  40 succeeded (36 resumed)

        """)
  }

  @Test func aRunWithoutAnEndLineDidNotFinishAndCountsItsJobLines() {
    Self.inUTC()
    let journal = Self.journal([Self.header, Self.build, Self.test, Self.test])
    let run = PastRun(header: journal.header!, journal: journal)
    #expect(run.exitCode == nil && run.duration == nil && !run.finished)
    #expect(run.counts == [.succeeded: 1, .failed: 1, .cancelled: 0, .skipped: 0, .timedOut: 0])
    #expect(
      RunHistoryText.runs([run], manifest: "jobs.yaml", folder: ".") == """
        RUN                 STARTED              DURATION  STATUS          JOBS
        20260101T000000-42  1970-01-01 00:00:00  -         did not finish  1 succeeded (1 resumed) · 1 failed

        """)
  }

  @Test func aManifestWithoutRunsSaysSoInOneLine() {
    #expect(
      RunHistoryText.runs([], manifest: "ci.yaml", folder: "./.oprun/runs")
        == "no run of ci.yaml is recorded in ./.oprun/runs yet\n")
    #expect(RunHistoryText.runsJSON([]) == "[]\n")
  }

  @Test func runsAsJSONHaveEveryOutcomeAndNullForWhatARunThatDidNotFinishLacks() throws {
    let runs = [
      PastRun(header: Self.journal([Self.header]).header!, journal: Self.journal([Self.header, Self.test])),
      PastRun(header: Self.journal([Self.header]).header!, journal: Self.journal([Self.header, Self.end])),
    ]
    #expect(
      RunHistoryText.runsJSON(runs) == """
        [{"run":"20260101T000000-42","start":0.5,"duration":null,"exit_code":null,\
        "counts":{"succeeded":0,"failed":1,"cancelled":0,"skipped":0,"timed-out":0}},\
        {"run":"20260101T000000-42","start":0.5,"duration":3.25,"exit_code":1,\
        "counts":{"succeeded":1,"failed":1,"cancelled":1,"skipped":1,"timed-out":0}}]

        """)
  }

  @Test func theJobsOfARunAreATableThenTheSummaryOfItsEndLine() {
    Self.inUTC()
    let journal = Self.journal([Self.header, Self.build, Self.test, Self.serve, Self.deploy, Self.end])
    #expect(
      RunHistoryText.jobs(of: journal) == """
        run 20260101T000000-42 · started 1970-01-01 00:00:00 · /work/jobs.yaml · oprun 0.1.0 · args -k
        JOB     OUTCOME              STATUS          START   DURATION  CPU     MEMORY  FINGERPRINT
        build   succeeded (resumed)  -               0.000s  -         -       -       00000000000000aa
        test    failed               exit 2          1.250s  1m02s     12.50s  1.1 GB  00000000000000bb
        serve   cancelled            signal SIGTERM  1.500s  0.25s     0.01s   3.0 MB  00000000000000cc
        deploy  skipped              -               2.500s  -         -       -       00000000000000dd
        ── summary: 4 jobs · 1 succeeded (1 resumed) · 1 failed · 1 cancelled · 1 skipped · 3.25s wall · exit 1

        """)
  }

  @Test func theJobsOfARunThatDidNotFinishEndWithWhatItsJobLinesCount() {
    let text = RunHistoryText.jobs(of: Self.journal([Self.header, Self.test]))
    #expect(text.hasSuffix("\n── summary: 1 job · 1 failed · did not finish\n"), "\(text)")
  }

  @Test func theJSONOfARunIsItsLinesAsWritten() {
    let lines = [Self.header, Self.build, "not json", Self.test, Self.end]
    let journal = Self.journal(lines, keepingLines: true)
    #expect(
      RunHistoryText.journalJSON(journal)
        == #"{"header":\#(Self.header),"jobs":[\#(Self.build),\#(Self.test)],"end":\#(Self.end)}"# + "\n")
    let unfinished = Self.journal([Self.header], keepingLines: true)
    #expect(RunHistoryText.journalJSON(unfinished) == #"{"header":\#(Self.header),"jobs":[],"end":null}"# + "\n")
  }

  @Test func unreadableLinesGiveOneWarningThatTheRestIsShown() {
    let journal = Self.journal([Self.header, "{", Self.test, "[]"])
    #expect(
      JournalFolder.warning(about: journal, in: "runs/r.ndjson", for: .log)
        == "runs/r.ndjson: skipped 2 lines that could not be read (line 2: \(journal.problems[0].message)); "
        + "the rest is shown")
    #expect(JournalFolder.warning(about: Self.journal([Self.header, Self.test]), in: "r", for: .log) == nil)
  }

  @Test func aLoneArgumentIsAManifestWhenItLooksLikeOneElseARunID() {
    #expect(LogCommandLine.request(for: []) == .runs(manifest: "jobs.yaml"))
    #expect(LogCommandLine.request(for: ["ci.yaml"]) == .runs(manifest: "ci.yaml"))
    #expect(LogCommandLine.request(for: ["sub/ci.yml"]) == .runs(manifest: "sub/ci.yml"))
    #expect(LogCommandLine.request(for: ["/dev/null"]) == .runs(manifest: "/dev/null"))
    #expect(LogCommandLine.request(for: ["20260101T000000-42"]) == .run(id: "20260101T000000-42", manifest: nil))
    #expect(LogCommandLine.request(for: ["ci.yaml", "r1"]) == .run(id: "r1", manifest: "ci.yaml"))
  }
}
