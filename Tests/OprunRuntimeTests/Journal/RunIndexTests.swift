import Foundation
import Testing

@testable import OprunRuntime

/// The index of a user's runs (SPEC §9): where it is, what it records and what it leads to.
@Suite struct RunIndexTests {
  @Test func itIsInTheAbsoluteStateHomeElseInTheHomesLocalState() {
    #expect(RunIndex.folder(stateHome: "/s/", home: "/h") == "/s/oprun")
    #expect(RunIndex.folder(stateHome: "relative", home: "/h/") == "/h/.local/state/oprun")
    #expect(RunIndex.folder(stateHome: nil, home: "/") == "/.local/state/oprun")
    #expect(RunIndex.folder(stateHome: nil, home: "h") == nil)
    #expect(RunIndex.folder(stateHome: nil, home: nil) == nil)
  }

  @Test func aRecordedRunIsFoundAndOnlyARunsJournalOfItsNameIsEverLedTo() throws {
    let root = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let index = RunIndex(folder: root + "/state/oprun")
    #expect(try index.lookUp(run: "r-1").get() == .unknown, "no index yet")

    let journal = root + "/project/.oprun/runs/r-1.ndjson"
    try FileManager.default.createDirectory(atPath: root + "/project/.oprun/runs", withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: journal, contents: Data())
    #expect(index.record(run: "r-1", journal: journal, pruning: false) == nil)
    #expect(index.record(run: "r-2", journal: root + "/project/.oprun/runs/r-2.ndjson", pruning: false) == nil)
    // A path that cannot be one line is left out; a line planted by hand leads nowhere else.
    #expect(index.record(run: "r-3", journal: root + "/new\nline/.oprun/runs/r-3.ndjson", pruning: false) == nil)
    let planted = try FileHandle(forWritingTo: URL(fileURLWithPath: index.file))
    try planted.seekToEnd()
    try planted.write(contentsOf: Data("r-4\t/etc/passwd\n".utf8))
    try planted.close()

    #expect(try index.lookUp(run: "r-1").get() == .journal(journal))
    #expect(try index.lookUp(run: "r-2").get() == .gone(root + "/project/.oprun/runs/r-2.ndjson"))
    #expect(try index.lookUp(run: "r-3").get() == .unknown)
    #expect(try index.lookUp(run: "r-4").get() == .unknown)
    #expect(index.runIDs() == ["r-1", "r-2", "r-4"])

    // Pruning keeps the entries whose journal is there, and drops those that lead elsewhere.
    let fifth = root + "/project/.oprun/runs/r-5.ndjson"
    FileManager.default.createFile(atPath: fifth, contents: Data())
    #expect(index.record(run: "r-5", journal: fifth, pruning: true) == nil)
    #expect(try String(contentsOfFile: index.file, encoding: .utf8) == "r-1\t\(journal)\nr-5\t\(fifth)\n")
  }
}
