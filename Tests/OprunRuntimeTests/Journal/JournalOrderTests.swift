import COprunSystem
import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// Which journals are a manifest's and in which order (SPEC §9): by the sequence their names
/// carry, those of an earlier oprun first; a damaged header hides no records; a link where a
/// journal should be is not followed.
@Suite final class JournalOrderTests {
  private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-order-\(UUID())")

  deinit {
    try? FileManager.default.removeItem(at: folder)
  }

  private var runs: URL { fixture.runs }

  private var fixture: JournalFixture { JournalFixture(folder: folder) }

  private func journal(_ run: String, start: Double, header: String? = nil, lines: [String] = []) throws {
    try fixture.journal(run, start: start, header: header, lines: lines)
  }

  private func job(_ name: String, outcome: String = "succeeded") -> String {
    JournalFixture.job(name, outcome: outcome)
  }

  private var journals: JournalFolder { fixture.journals }

  @Test func sequenceDecidesTheOrderWhateverTheHeadersStartAndUnnumberedJournalsComeFirst() throws {
    try journal("20260101T000000-1-10", start: 100)
    try journal("20260101T000000-1-9", start: 900)
    try journal("20260101T000000-7", start: 5_000)
    try journal("20250101T000000-8", start: 4_000)
    let order = journals.entries().entries.map(\.name.run)
    #expect(order == ["20250101T000000-8", "20260101T000000-7", "20260101T000000-1-9", "20260101T000000-1-10"])
  }

  @Test func aDamagedHeaderLeavesTheRecordsOfTheRunTheNameSays() throws {
    try journal("20260101T000000-1-1", start: 1, lines: [job("build")])
    try journal(
      "20260101T000000-1-2", start: 2, header: #"{"type":"header","format":1,"ru"#,
      lines: [job("build", outcome: "failed")])
    let (entries, warnings) = journals.entries()
    #expect(entries.map(\.name.run) == ["20260101T000000-1-1", "20260101T000000-1-2"])
    #expect(entries.last?.header == nil)
    #expect(warnings.contains { $0.contains("its header line cannot be read") }, "\(warnings)")
    #expect(journals.newestRecords(of: ["build"]).records["build"]?.outcome == .failed)
  }

  /// A journal says whose it is by an attribute as well as by its header: another manifest's
  /// is not read at all, damaged or not, and this manifest's is read as before.
  @Test func aJournalWhoseAttributeNamesAnotherManifestIsNotRead() throws {
    try journal("20260101T000000-1-1", start: 1, lines: [job("build")])
    let damaged = #"{"type":"header","format":1,"ru"#
    try journal("20260101T000000-1-2", start: 2, header: damaged, lines: [job("build", outcome: "failed")])
    try journal("20260101T000000-1-3", start: 3, header: damaged, lines: [job("build", outcome: "failed")])
    try setOwner("other.yaml", of: "20260101T000000-1-2")
    try setOwner("jobs.yaml", of: "20260101T000000-1-3")
    let (entries, warnings) = journals.entries()
    #expect(entries.map(\.name.run) == ["20260101T000000-1-1", "20260101T000000-1-3"])
    #expect(warnings.filter { $0.contains("its header line cannot be read") }.count == 1, "\(warnings)")
    #expect(!warnings.contains { $0.contains("20260101T000000-1-2") }, "\(warnings)")

    // And a journal made by a run carries its manifest's name.
    guard case .success(let made) = journals.create(runID: { "20260101T000000-1-\($0)" }) else {
      Issue.record("no journal made")
      return
    }
    close(made.descriptor)
    #expect(made.run == "20260101T000000-1-4")
    #expect(JournalFolder.owner(of: made.file) == "jobs.yaml")
  }

  private func setOwner(_ manifest: String, of run: String) throws {
    let descriptor = open(runs.appendingPathComponent(run + ".ndjson").path, O_RDONLY)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    #expect(oprun_set_attribute(descriptor, JournalFolder.ownerAttribute, manifest, manifest.utf8.count) == 0)
  }

  @Test func aLinkWhereAJournalShouldBeIsNotFollowed() throws {
    try journal("20260101T000000-1-1", start: 1, lines: [job("build")])
    let elsewhere = folder.appendingPathComponent("elsewhere.ndjson")
    try FileManager.default.moveItem(at: runs.appendingPathComponent("20260101T000000-1-1.ndjson"), to: elsewhere)
    try FileManager.default.createSymbolicLink(
      at: runs.appendingPathComponent("20260101T000000-1-1.ndjson"), withDestinationURL: elsewhere)
    let (entries, warnings) = journals.entries()
    #expect(entries.isEmpty)
    #expect(journals.newestRecords(of: ["build"]).records.isEmpty)
    #expect(warnings.isEmpty, "a fresh link is no journal yet, and not warned about: \(warnings)")
  }
}
