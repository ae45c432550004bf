import Foundation
import OprunCore
import OprunRuntime
import Testing

/// `--schedule critical-path` reads its weights from every kept journal of the manifest
/// (SPEC §5, §9), through the one journal reader.
@Suite final class JournalDurationsTests {
  private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-durations-\(UUID())")

  deinit {
    try? FileManager.default.removeItem(at: folder)
  }

  private func journal(_ run: String, manifest: String = "jobs.yaml", start: Double, jobs: [String]) throws {
    let runs = folder.appendingPathComponent(".oprun/runs")
    try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
    let header =
      #"{"type":"header","format":1,"run":"\#(run)","manifest":"/elsewhere/\#(manifest)","start":\#(start),"#
      + #""oprun":"0.1.0","args":[],"targets":[]}"#
    let text = ([header] + jobs).map { $0 + "\n" }.joined()
    try text.write(to: runs.appendingPathComponent(run + ".ndjson"), atomically: true, encoding: .utf8)
  }

  private func job(_ name: String, _ duration: Double, outcome: String = "succeeded", resumed: Bool = false) -> String {
    #"{"type":"job","job":"\#(name)","outcome":"\#(outcome)","exit_code":0,"signal":null,"start":1,"#
      + #""duration":\#(duration),"attempt":1,"fingerprint":"00000000000000aa"\#(resumed ? #","resumed":true"# : "")}"#
  }

  private var journals: JournalFolder { JournalFolder(manifestPath: folder.appendingPathComponent("jobs.yaml").path) }

  @Test func durationsAreTheMediansOverEveryKeptJournalOfTheManifest() throws {
    try journal("r1", start: 1, jobs: [job("build", 4), job("test", 1, outcome: "failed")])
    try journal("r2", start: 2, jobs: [job("build", 0, resumed: true), job("test", 3)])
    try journal("r3", start: 3, jobs: [job("build", 10), job("lint", 0.5, outcome: "skipped")])
    let past = journals.pastDurations()
    #expect(past.median(of: "build") == 7)
    #expect(past.count(of: "build") == 2)
    #expect(past.median(of: "test") == 2)
    #expect(past.median(of: "lint") == nil)
  }

  @Test func anotherManifestsJournalsAndFilesThatAreNoJournalCountForNothing() throws {
    try journal("r1", start: 1, jobs: [job("build", 2)])
    try journal("r2", manifest: "other.yaml", start: 2, jobs: [job("build", 100)])
    try "not json\n".write(
      to: folder.appendingPathComponent(".oprun/runs/junk.ndjson"), atomically: true, encoding: .utf8)
    #expect(journals.pastDurations().median(of: "build") == 2)
    #expect(journals.pastDurations().count(of: "build") == 1)
  }

  @Test func noJournalAtAllMeansNoDurationIsKnown() {
    #expect(journals.pastDurations().median(of: "build") == nil)
  }
}
