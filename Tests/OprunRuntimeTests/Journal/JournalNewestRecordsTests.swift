import Foundation
import OprunCore
import OprunRuntime
import Testing

/// The newest record of each job that declares inputs or outputs, across the manifest's
/// journals (SPEC §10), when a journal has a line that cannot be read (SPEC §9: the job it
/// recorded runs again, so an older record must not stand for it).
@Suite final class JournalNewestRecordsTests {
  private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-newest-\(UUID())")

  deinit {
    try? FileManager.default.removeItem(at: folder)
  }

  private func journal(_ run: String, start: Double, lines: [String]) throws {
    let runs = folder.appendingPathComponent(".oprun/runs")
    try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
    let header =
      #"{"type":"header","format":1,"run":"\#(run)","manifest":"/elsewhere/jobs.yaml","start":\#(start),"#
      + #""oprun":"0.1.0","args":[],"targets":[]}"#
    let text = ([header] + lines).map { $0 + "\n" }.joined()
    try text.write(to: runs.appendingPathComponent(run + ".ndjson"), atomically: true, encoding: .utf8)
  }

  private func job(_ name: String, outcome: String = "succeeded") -> String {
    #"{"type":"job","job":"\#(name)","outcome":"\#(outcome)","exit_code":0,"signal":null,"start":1,"#
      + #""duration":1,"attempt":1,"fingerprint":"00000000000000aa"}"#
  }

  private var journals: JournalFolder { JournalFolder(manifestPath: folder.appendingPathComponent("jobs.yaml").path) }

  @Test func aCutLineThatNamesItsJobHidesThatJobsOlderRecordsOnly() throws {
    try journal("r1", start: 1, lines: [job("build"), job("test")])
    // build failed in r2, but its line was cut short: the success before it must not stand.
    try journal("r2", start: 2, lines: [String(job("build", outcome: "failed").prefix(40))])
    let (records, warnings) = journals.newestRecords(of: ["build", "test"])
    #expect(records["build"] == nil)
    #expect(records["test"]?.outcome == .succeeded)
    #expect(warnings.count == 1)
    #expect(warnings.first?.contains("runs again") == true, "\(warnings)")
  }

  @Test func aLineThatNamesNoJobHidesTheOlderRecordsOfEveryJob() throws {
    try journal("r1", start: 1, lines: [job("build"), job("test")])
    try journal("r2", start: 2, lines: [job("lint"), #"{"type":"jo"#])
    let (records, _) = journals.newestRecords(of: ["build", "test", "lint"])
    #expect(records["lint"]?.outcome == .succeeded)
    #expect(records["build"] == nil)
    #expect(records["test"] == nil)
  }

  @Test func aCutHeaderOrEndLineHidesNoRecord() throws {
    try journal("r1", start: 1, lines: [job("build")])
    try journal("r2", start: 2, lines: [job("test"), #"{"type":"end","exit_c"#])
    let (records, _) = journals.newestRecords(of: ["build", "test"])
    #expect(records["build"]?.outcome == .succeeded)
    #expect(records["test"]?.outcome == .succeeded)
  }
}
