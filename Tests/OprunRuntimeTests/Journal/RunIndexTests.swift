import Foundation
import Glibc
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
    #expect((try? index.record(run: "r-1", journal: journal).get()) == false)
    #expect((try? index.record(run: "r-2", journal: root + "/project/.oprun/runs/r-2.ndjson").get()) == false)
    // A path that cannot be one line is left out; a line planted by hand leads nowhere else.
    #expect((try? index.record(run: "r-3", journal: root + "/new\nline/.oprun/runs/r-3.ndjson").get()) == false)
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
    #expect((try? index.record(run: "r-5", journal: fifth).get()) == false)
    index.dropEntriesOfGoneJournals()
    #expect(try String(contentsOfFile: index.file, encoding: .utf8) == "r-1\t\(journal)\nr-5\t\(fifth)\n")
  }

  @Test func journalsAreLookedAtWithNoLockHeldAndEntriesAddedMeanwhileAreKept() throws {
    let root = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let index = RunIndex(folder: root + "/oprun")
    let runs = root + "/project/.oprun/runs/"
    for run in ["r-1", "r-2"] { _ = index.record(run: run, journal: runs + run + ".ndjson") }
    var looked: [String] = []
    index.dropEntriesOfGoneJournals { journal in
      // Another run may take the index exclusively now, and add itself.
      let other = open(index.file, O_RDONLY)
      defer { close(other) }
      #expect(flock(other, LOCK_EX | LOCK_NB) == 0, "no lock of the index is held while journals are looked at")
      flock(other, LOCK_UN)
      if looked.isEmpty { _ = index.record(run: "r-3", journal: runs + "r-3.ndjson") }
      looked.append(journal)
      return journal.hasSuffix("r-1.ndjson")
    }
    #expect(looked == [runs + "r-1.ndjson", runs + "r-2.ndjson"])
    #expect(index.runIDs() == ["r-2", "r-3"], "only what was found gone is dropped")
  }

  @Test func noRunWaitsForAnotherThatHoldsTheIndex() throws {
    let root = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let index = RunIndex(folder: root + "/oprun")
    let runs = root + "/project/.oprun/runs/"
    _ = index.record(run: "r-1", journal: runs + "r-1.ndjson")
    let holder = open(index.file, O_RDONLY)
    defer { close(holder) }

    // A pruning run holds it: a starting run gives up adding itself, and says why.
    #expect(flock(holder, LOCK_EX) == 0)
    guard case .failure(let problem) = index.record(run: "r-2", journal: runs + "r-2.ndjson") else {
      Issue.record("a run is not added while another rewrites the index")
      return
    }
    #expect(problem.message.contains("locked by another oprun"))

    // A run adding itself holds it: a pruning run leaves it as it is.
    #expect(flock(holder, LOCK_SH) == 0)
    index.dropEntriesOfGoneJournals { _ in true }
    #expect(index.runIDs() == ["r-1"], "nothing dropped while another run holds the index")
    #expect(flock(holder, LOCK_UN) == 0)
    index.dropEntriesOfGoneJournals { _ in true }
    #expect(index.runIDs() == [])
  }
}
