import Foundation
import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

extension JournalFollower {
  /// The newest record of the job named `name`, when it could be read.
  fileprivate func record(of name: String) -> JournalRecord? {
    guard case .read(let record) = newestRecord(of: name) else { return nil }
    return record
  }
}

/// The newest record of one job, asked for while another run appends to its journal (SPEC
/// §10: a job whose lock that run held is decided from what it recorded): what is appended is
/// read, and only whole lines; this run's own journal is passed over.
@Suite final class JournalFollowerTests {
  private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-follower-\(UUID())")

  deinit {
    try? FileManager.default.removeItem(at: folder)
  }

  private var fixture: JournalFixture { JournalFixture(folder: folder) }

  private func append(_ text: String, to run: String) throws {
    let handle = try FileHandle(forWritingTo: fixture.runs.appendingPathComponent(run + ".ndjson"))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
  }

  private func file(of run: String) -> String { fixture.journals.path + "/" + run + ".ndjson" }

  @Test func aRecordAppendedToAnotherRunsJournalIsTheNewestOnceItsLineIsWhole() throws {
    try fixture.journal("r1", start: 1, lines: [JournalFixture.job("build")])
    try fixture.journal("r2", start: 2)
    let follower = JournalFollower(folder: fixture.journals, ownJournal: nil)
    #expect(follower.record(of: "build")?.outcome == .succeeded)

    let failed = JournalFixture.job("build", outcome: "failed")
    try append(String(failed.prefix(30)), to: "r2")
    #expect(follower.record(of: "build")?.outcome == .succeeded, "a line not yet ended is not read")
    try append(String(failed.dropFirst(30)) + "\n", to: "r2")
    #expect(follower.record(of: "build")?.outcome == .failed)
    try append(JournalFixture.job("build") + "\n", to: "r2")
    #expect(follower.record(of: "build")?.outcome == .succeeded)
    #expect(follower.record(of: "test") == nil)
  }

  @Test func thisRunsOwnJournalIsPassedOver() throws {
    try fixture.journal("r1", start: 1, lines: [JournalFixture.job("build")])
    try fixture.journal("r2", start: 2, lines: [JournalFixture.job("build", outcome: "failed")])
    let follower = JournalFollower(folder: fixture.journals, ownJournal: file(of: "r2"))
    #expect(follower.record(of: "build")?.outcome == .succeeded)
  }

  @Test func aCutLineHidesOlderRecordsOfItsJobAsWhenAllIsReadAtOnce() throws {
    try fixture.journal("r1", start: 1, lines: [JournalFixture.job("build"), JournalFixture.job("test")])
    try fixture.journal("r2", start: 2, lines: [String(JournalFixture.job("build", outcome: "failed").prefix(40))])
    let follower = JournalFollower(folder: fixture.journals, ownJournal: nil)
    let (records, _) = fixture.journals.newestRecords(of: ["build", "test"])
    #expect(follower.record(of: "build") == records["build"])
    #expect(follower.record(of: "build") == nil)
    #expect(follower.record(of: "test") == records["test"])
    #expect(follower.record(of: "test")?.outcome == .succeeded)
  }

  @Test func aJournalOfAnotherUserOrLinkedTwiceIsTrustedForNothingAndHidesOlderOnes() throws {
    try fixture.journal("r1", start: 1, lines: [JournalFixture.job("build", outcome: "failed")])
    // Dropped in by someone else who may write runs/: it says the job succeeded.
    try fixture.journal("r2", start: 2, lines: [JournalFixture.job("build")])
    try #require(chown(file(of: "r2"), 65534, 65534) == 0)
    let follower = JournalFollower(folder: fixture.journals, ownJournal: nil)
    #expect(follower.record(of: "build") == nil, "another user's journal decides nothing")

    // A hard link to a file that says the same, planted as the newest journal.
    let other = JournalFixture(folder: folder.appendingPathComponent("elsewhere"))
    try other.journal("r3", start: 3, lines: [JournalFixture.job("build")])
    try FileManager.default.removeItem(atPath: file(of: "r2"))
    try #require(link(other.journals.path + "/r3.ndjson", file(of: "r3")) == 0)
    let later = JournalFollower(folder: fixture.journals, ownJournal: nil)
    #expect(later.record(of: "build") == nil, "a journal linked twice decides nothing")
  }

  @Test func theFolderIsListedAgainOnlyOnceItChangedAndAJournalReadAgainOnlyOnceItGrew() throws {
    try fixture.journal("r1", start: 1, lines: [JournalFixture.job("build")])
    try fixture.journal("r2", start: 2, lines: [JournalFixture.job("test")])
    // Last changed long ago: a listing of it may be kept.
    var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
    try #require(utimensat(AT_FDCWD, fixture.journals.path, &times, 0) == 0)
    let follower = JournalFollower(folder: fixture.journals, ownJournal: nil)
    #expect(follower.record(of: "build")?.outcome == .succeeded)
    #expect(follower.listings == 1 && follower.opens == 2)
    #expect(follower.record(of: "build")?.outcome == .succeeded)
    #expect(follower.record(of: "test")?.outcome == .succeeded)
    #expect(follower.listings == 1 && follower.opens == 2, "nothing changed: nothing listed or opened again")

    try append(JournalFixture.job("build", outcome: "failed") + "\n", to: "r2")
    #expect(follower.record(of: "build")?.outcome == .failed, "what was appended is read")
    #expect(follower.listings == 1 && follower.opens == 3)

    try fixture.journal("r3", start: 3, lines: [JournalFixture.job("build")])
    #expect(follower.record(of: "build")?.outcome == .succeeded, "a new journal is found")
    #expect(follower.listings == 2)
  }
}
