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

  private var fixture: JournalFixture { JournalFixture(folder: folder) }

  private func journal(_ run: String, start: Double, header: String? = nil, lines: [String] = []) throws {
    try fixture.journal(run, start: start, header: header, lines: lines)
  }

  private func job(_ name: String, outcome: String = "succeeded") -> String {
    JournalFixture.job(name, outcome: outcome)
  }

  private var journals: JournalFolder { fixture.journals }

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
