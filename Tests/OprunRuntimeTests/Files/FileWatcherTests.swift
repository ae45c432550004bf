import Glibc
import OprunRuntime
import Testing

@Suite struct FileWatcherTests {
  /// A fresh folder of its own.
  private func scratchFolder() throws -> String {
    var template = Array("/tmp/oprun-watch-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private func write(_ text: String, to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
    close(fd)
  }

  /// The paths the next notices bring, until `expected` are all among them.
  private func changes(
    of watcher: FileWatcher, including expected: Set<String>, after action: () -> Void
  ) -> Set<String> {
    let loop = EventLoop()
    var seen: Set<String> = []
    watcher.serve(on: loop) { notice in
      if case .changed(let paths) = notice { seen.formUnion(paths) }
    }
    action()
    loop.run { expected.isSubset(of: seen) }
    watcher.stopServing()
    return seen
  }

  @Test func aWriteInASubfolderOfTheTreeIsHeardOf() throws {
    let root = try scratchFolder()
    mkdir(root + "/src", 0o755)
    let watcher = try FileWatcher()
    #expect(watcher.watch(folder: root))
    #expect(watcher.watchedFolderCount == 2)
    let seen = changes(of: watcher, including: [root + "/src/a.c"]) { write("x", to: root + "/src/a.c") }
    #expect(seen.contains(root + "/src/a.c"))
  }

  @Test func aFolderCreatedLaterIsWatchedAndItsFilesAreNews() throws {
    let root = try scratchFolder()
    let watcher = try FileWatcher()
    watcher.watch(folder: root)
    let early = root + "/new/early.txt"
    _ = changes(of: watcher, including: [root + "/new"]) {
      mkdir(root + "/new", 0o755)
      write("made before its watch, maybe", to: early)
    }
    #expect(watcher.watchedFolderCount == 2)
    let late = root + "/new/late.txt"
    let seen = changes(of: watcher, including: [late]) { write("after", to: late) }
    #expect(seen.contains(late))
  }

  @Test func aFolderMadeWhereOneWasMovedAwayIsWatchedAfreshAndItsFilesAreNews() throws {
    let root = try scratchFolder()
    mkdir(root + "/sub", 0o755)
    mkdir(root + "/sub/deeper", 0o755)
    let watcher = try FileWatcher()
    watcher.watch(folder: root)
    let before = watcher.folderWatches
    _ = changes(of: watcher, including: [root + "/moved", root + "/sub"]) {
      rename(root + "/sub", root + "/moved")
      mkdir(root + "/sub", 0o755)
    }
    #expect(watcher.folderWatches[root + "/moved"] == before[root + "/sub"], "the same folder, watched where it went")
    #expect(watcher.folderWatches[root + "/sub"] != before[root + "/sub"], "the new folder has a watch of its own")
    #expect(watcher.folderWatches[root + "/sub/deeper"] == nil, "nothing is there yet")
    let late = root + "/sub/late.txt"
    let seen = changes(of: watcher, including: [late]) { write("after", to: late) }
    #expect(seen.contains(late))
  }

  @Test func aRenameOverAFileNamesTheFile() throws {
    let root = try scratchFolder()
    write("old", to: root + "/page.md")
    let watcher = try FileWatcher()
    watcher.watch(folder: root)
    let seen = changes(of: watcher, including: [root + "/page.md"]) {
      write("new", to: root + "/.page.md.swp")
      rename(root + "/.page.md.swp", root + "/page.md")
    }
    #expect(seen.contains(root + "/page.md"))
  }

  @Test func eventsWhileNotServedWaitForTheNextLoop() throws {
    let root = try scratchFolder()
    let watcher = try FileWatcher()
    watcher.watch(folder: root)
    write("meanwhile", to: root + "/queued.txt")
    let seen = changes(of: watcher, including: [root + "/queued.txt"]) {}
    #expect(seen.contains(root + "/queued.txt"))
  }

  @Test func aRootThatDoesNotExistIsNotWatched() throws {
    let watcher = try FileWatcher()
    #expect(watcher.watch(folder: "/nonexistent-oprun-folder"))
    #expect(watcher.watchedFolderCount == 0)
    #expect(!watcher.limitReached)
  }
}
