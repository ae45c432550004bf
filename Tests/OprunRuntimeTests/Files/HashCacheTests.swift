import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// The hash cache in `.oprun/`: a file unchanged since it was hashed is not read again.
@Suite struct HashCacheTests {
  /// A hasher whose readings seem to happen a minute after now, so that files just written
  /// are safely older than their hashing and their entries are trusted.
  private func hasherLongAfter(cacheFolder: String?) -> FileHasher {
    FileHasher(cacheFolder: cacheFolder) { Timestamp.now().minus(seconds: -60) }
  }

  /// What `stat` might say of the `index`th file.
  private func status(_ index: Int) -> FileStatus {
    let time = Timestamp(seconds: 1_000_000 + Int64(index), nanoseconds: 0)
    return FileStatus(
      device: 1, inode: UInt64(index), size: Int64(index), modified: time, changed: time, type: UInt32(S_IFREG))
  }

  /// 64 hex digits told apart by `index`.
  private func digest(_ index: Int) -> String {
    let hex = String(index, radix: 16)
    return String(repeating: "0", count: 64 - hex.count) + hex
  }

  /// The `index`th file's entry, hashed long after its last change so that it is trusted.
  private func entry(_ index: Int) -> HashCache.Entry {
    .init(status: status(index), hashedAt: status(index).modified.minus(seconds: -60), digest: digest(index))
  }

  @Test func anUnchangedFileIsNotReadAgain() throws {
    let tree = try FileTree()
    for index in 0..<20 { tree.write("src/\(index).c", "int x\(index);") }
    let hasher = hasherLongAfter(cacheFolder: nil)
    let first = try tree.snapshot(["src/"], hasher: hasher)
    #expect(hasher.contentRead.files == 20)
    let second = try tree.snapshot(["src/"], hasher: hasher)
    #expect(second == first)
    #expect(hasher.contentRead.files == 20, "the second snapshot read nothing")
  }

  @Test func theCacheOutlivesTheHasherInItsFolder() throws {
    let tree = try FileTree()
    tree.write("a.c", "a")
    let cacheFolder = tree.path(".oprun")
    let first = hasherLongAfter(cacheFolder: cacheFolder)
    let digest = try tree.snapshot(["a.c"], hasher: first).digest
    first.cache.save()
    let second = hasherLongAfter(cacheFolder: cacheFolder)
    #expect(second.cache.count == 1)
    #expect(try tree.snapshot(["a.c"], hasher: second).digest == digest)
    #expect(second.contentRead.files == 0)
  }

  @Test func savingWithNothingNewLeavesTheFileAlone() throws {
    let tree = try FileTree()
    tree.write("a.c", "a")
    let hasher = hasherLongAfter(cacheFolder: tree.path(".oprun"))
    _ = try tree.snapshot(["a.c"], hasher: hasher)
    hasher.cache.save()
    var before = stat()
    try #require(stat(tree.path(".oprun/hashes"), &before) == 0)
    _ = try tree.snapshot(["a.c"], hasher: hasher)
    hasher.cache.save()
    var after = stat()
    try #require(stat(tree.path(".oprun/hashes"), &after) == 0)
    #expect(after.st_ino == before.st_ino, "not rewritten")
  }

  @Test func anEditWithinTheTimestampGranularityIsStillSeen() throws {
    let tree = try FileTree()
    tree.write("a.c", "aaaa")
    let hasher = FileHasher(cacheFolder: nil)
    let first = try tree.snapshot(["a.c"], hasher: hasher)
    tree.write("a.c", "bbbb")
    tree.write("sibling", "")
    // The second edit has the size and modification time of the first, as two writes in one tick.
    tree.copyModificationTime(of: "a.c", to: "sibling")
    tree.copyModificationTime(of: "sibling", to: "a.c")
    let second = try tree.snapshot(["a.c"], hasher: hasher)
    #expect(second.files.first?.digest == sha256("bbbb"))
    #expect(second.digest != first.digest)
  }

  @Test func anEntryIsTrustedOnlyForFilesSafelyOlderThanTheirHashing() {
    let status = FileStatus(
      device: 1, inode: 2, size: 3, modified: Timestamp(seconds: 100, nanoseconds: 5),
      changed: Timestamp(seconds: 100, nanoseconds: 5), type: UInt32(S_IFREG))
    #expect(HashCache.trusts(status, hashedAt: .init(seconds: 102, nanoseconds: 0), now: status))
    #expect(
      !HashCache.trusts(status, hashedAt: .init(seconds: 100, nanoseconds: 500), now: status),
      "hashed in the same tick as the file's last change: it may have changed again unseen")
    var changed = status
    changed.changed = Timestamp(seconds: 101, nanoseconds: 0)
    #expect(!HashCache.trusts(status, hashedAt: .init(seconds: 102, nanoseconds: 0), now: changed))
    var moved = status
    moved.inode = 9
    #expect(!HashCache.trusts(status, hashedAt: .init(seconds: 200, nanoseconds: 0), now: moved))
  }

  @Test func aFileWrittenWithKnownBytesIsNotReadWhileItIsTheSame() throws {
    let tree = try FileTree()
    tree.write("out.bin", "restored")
    // The clock as it is: the file was just written, so only its being vouched for spares
    // the reading.
    let hasher = FileHasher(cacheFolder: nil)
    let written = try #require(FileStatus.of(tree.path("out.bin"), followingLink: false))
    let digest = ContentDigest.of(Array("restored".utf8))
    hasher.cache.vouch(for: "out.bin", status: written, digest: digest, writtenAt: .now())
    #expect(try tree.snapshot(["out.bin"], hasher: hasher).files.map(\.digest) == [digest])
    #expect(hasher.contentRead.files == 0)
    tree.write("out.bin", "written again")
    let again = try tree.snapshot(["out.bin"], hasher: hasher)
    #expect(hasher.contentRead.files == 1, "a file changed since is read")
    #expect(again.files.map(\.digest) == [ContentDigest.of(Array("written again".utf8))])
  }

  @Test func aWalkUnderWatchTakesTheStatusTheWatcherVouchesForAndLooksAtWhatItNamed() throws {
    let tree = try FileTree()
    tree.write("src/a.c", "real a")
    tree.write("src/b.c", "real b")
    // What the last cycle found of both, and what the cache knows of files so: a walk that
    // takes that status finds the cached digest without reading the file.
    let lent = status(42)
    let earlier: [String: WatchedLooks.FolderLook] = [tree.path("src"): [("a.c", lent), ("b.c", lent)]]
    func snapshot(named: Set<String>, steadyFolders: Set<String>) throws -> (digests: [String], looks: WatchedLooks) {
      let hasher = hasherLongAfter(cacheFolder: nil)
      hasher.cache.record("src/a.c", entry(42))
      hasher.cache.record("src/b.c", entry(42))
      let looks = WatchedLooks(earlier: earlier, named: named, steadyFolders: steadyFolders)
      hasher.walk(with: looks)
      return (try tree.snapshot(["src/"], hasher: hasher).files.map(\.digest), looks)
    }
    let real = ["real a", "real b"].map { ContentDigest.of(Array($0.utf8)) }

    let (digests, looks) = try snapshot(named: [tree.path("src/b.c")], steadyFolders: [tree.path("src")])
    #expect(digests == [digest(42), real[1]], "a.c's status lent, b.c looked at: the kernel named it")
    let found = looks.foundLooks[tree.path("src")] ?? []
    #expect(found.map(\.name) == ["a.c", "b.c"])
    #expect(found.first?.status == lent, "kept for the next cycle")
    #expect(found.last?.status.inode != 42)

    #expect(try snapshot(named: [], steadyFolders: []).digests == real, "a folder watched afresh lends nothing")
  }

  @Test func aWalkUnderWatchKeepsNoStatusOfAFileWithAnotherName() throws {
    let tree = try FileTree()
    tree.write("src/a.c", "a")
    tree.write("src/b.c", "b")
    // Written through this name, b.c changes with no event naming it in src/.
    #expect(link(tree.path("src/b.c"), tree.path("elsewhere.c")) == 0)
    let hasher = FileHasher(cacheFolder: nil)
    let looks = WatchedLooks()
    hasher.walk(with: looks)
    _ = try tree.snapshot(["src/"], hasher: hasher)
    #expect(looks.foundLooks[tree.path("src")]?.map(\.name) == ["a.c"], "b.c is looked at every time")
  }

  @Test func touchingAFileReadsItAgainAndKeepsItsDigest() throws {
    let tree = try FileTree()
    tree.write("a.c", "a")
    let hasher = hasherLongAfter(cacheFolder: nil)
    let first = try tree.snapshot(["a.c"], hasher: hasher)
    tree.setModificationTime(of: "a.c", seconds: 1_000_000)
    let touched = try tree.snapshot(["a.c"], hasher: hasher)
    #expect(hasher.contentRead.files == 2, "the new time made it read again")
    #expect(touched == first)
  }

  @Test func everyPathOfALargeSavedCacheIsFound() throws {
    let tree = try FileTree()
    let folder = tree.path(".oprun")
    // Enough paths for many to want the same slots of the loaded table, short ones and long
    // ones sharing all but their last bytes.
    let paths = (0..<1000).map { $0.isMultiple(of: 2) ? "\($0)" : "data/deep/folder/file-\($0).bin" }
    let cache = HashCache(folder: folder)
    for (index, path) in paths.enumerated() { cache.record(path, entry(index)) }
    cache.save()
    let loaded = HashCache(folder: folder)
    #expect(loaded.count == paths.count)
    let found = paths.indices.filter { loaded.entries.digest(of: paths[$0], status: status($0)) == digest($0) }
    #expect(found.count == paths.count)
    #expect(loaded.entries.digest(of: "data/deep/folder/file-1000.bin", status: status(1000)) == nil)
  }

  @Test func aNewEntryReplacesTheSavedOneOfItsPath() throws {
    let tree = try FileTree()
    let folder = tree.path(".oprun")
    let first = HashCache(folder: folder)
    first.record("a", entry(1))
    first.record("b", entry(2))
    first.save()
    let second = HashCache(folder: folder)
    second.record("b", entry(3))
    second.record("c", entry(4))
    #expect(second.count == 3)
    #expect(second.entries.digest(of: "b", status: status(3)) == digest(3))
    #expect(second.entries.digest(of: "b", status: status(2)) == nil, "the saved entry is replaced")
    second.save()
    let third = HashCache(folder: folder)
    #expect(third.count == 3)
    #expect(third.entries.digest(of: "a", status: status(1)) == digest(1))
    #expect(third.entries.digest(of: "b", status: status(3)) == digest(3))
    #expect(third.entries.digest(of: "c", status: status(4)) == digest(4))
  }

  @Test func theSameEntriesAreSavedAsTheSameBytes() throws {
    let tree = try FileTree()
    let paths = ["b/2", "a", "b/1", "c"]
    for (folder, order) in [("one", paths), ("other", paths.reversed())] {
      let cache = HashCache(folder: tree.path(folder))
      for path in order { cache.record(path, entry(paths.firstIndex(of: path)!)) }
      cache.save()
    }
    let one = FileContents.read(path: tree.path("one/hashes"), limit: 1 << 20)
    #expect(try one.get() == FileContents.read(path: tree.path("other/hashes"), limit: 1 << 20).get())
  }

  @Test func aDamagedCacheFileIsIgnoredAndReplaced() throws {
    let tree = try FileTree()
    tree.write("a.c", "a")
    let cacheFolder = tree.path(".oprun")
    let hasher = hasherLongAfter(cacheFolder: cacheFolder)
    _ = try tree.snapshot(["a.c"], hasher: hasher)
    hasher.cache.save()
    #expect(HashCache(folder: cacheFolder).count == 1)
    try #require(truncate(tree.path(".oprun/hashes"), 40) == 0)
    #expect(HashCache(folder: cacheFolder).count == 0, "cut short")
    tree.write(".oprun/hashes", "not a cache at all")
    let again = hasherLongAfter(cacheFolder: cacheFolder)
    #expect(again.cache.count == 0, "foreign")
    #expect(try tree.snapshot(["a.c"], hasher: again).files.first?.digest == sha256("a"))
    again.cache.save()
    #expect(HashCache(folder: cacheFolder).count == 1)
  }

  /// The inode and size of `folder`'s cache file.
  private func fileIdentity(_ folder: String) throws -> (inode: UInt, size: Int) {
    var status = stat()
    try #require(stat(folder + "/hashes", &status) == 0)
    return (status.st_ino, Int(status.st_size))
  }

  /// A cache of `count` entries saved in `folder`, and loaded back.
  private func savedCache(_ count: Int, in folder: String) -> HashCache {
    let cache = HashCache(folder: folder)
    for index in 0..<count { cache.record("data/\(index)", entry(index)) }
    cache.save()
    return HashCache(folder: folder)
  }

  @Test func aFewNewEntriesAreAppendedAndReadBackOverTheSavedOnes() throws {
    let tree = try FileTree()
    let folder = tree.path(".oprun")
    let loaded = savedCache(100, in: folder)
    let before = try fileIdentity(folder)
    loaded.record("data/7", entry(1007))
    loaded.record("new", entry(2000))
    loaded.save()
    let after = try fileIdentity(folder)
    #expect(after.inode == before.inode, "appended, not written whole")
    #expect(after.size > before.size)
    let again = HashCache(folder: folder)
    #expect(again.count == 101)
    #expect(again.entries.digest(of: "data/7", status: status(1007)) == digest(1007), "the appended entry stands")
    #expect(again.entries.digest(of: "data/7", status: status(7)) == nil)
    #expect(again.entries.digest(of: "data/8", status: status(8)) == digest(8))
    #expect(again.entries.digest(of: "new", status: status(2000)) == digest(2000))
  }

  @Test func onceTheAppendedBlocksWouldOutgrowAQuarterOfTheFileItIsWrittenWhole() throws {
    let tree = try FileTree()
    let folder = tree.path(".oprun")
    let cache = savedCache(40, in: folder)
    let first = try fileIdentity(folder)
    var index = 1000
    // Each save appends 4 entries (a tenth of the 40 saved) until a quarter would be passed.
    var inodes: [UInt] = []
    for _ in 0..<3 {
      for _ in 0..<4 {
        cache.record("more/\(index)", entry(index))
        index += 1
      }
      cache.save()
      inodes.append(try fileIdentity(folder).inode)
    }
    #expect(inodes[0] == first.inode)
    #expect(inodes[1] == first.inode)
    #expect(inodes[2] != first.inode, "written whole")
    let whole = try fileIdentity(folder)
    #expect(HashCache(folder: folder).count == 52)
    // Written whole, it holds one block again, and the next entry is appended to it.
    cache.record("last", entry(3000))
    cache.save()
    #expect(try fileIdentity(folder).inode == whole.inode)
    let loaded = HashCache(folder: folder)
    #expect(loaded.count == 53)
    #expect(loaded.entries.digest(of: "more/1004", status: status(1004)) == digest(1004))
  }

  @Test func aHalfWrittenBlockLosesOnlyItselfAndTheNextSaveWritesTheFileWhole() throws {
    let tree = try FileTree()
    let folder = tree.path(".oprun")
    let cache = savedCache(20, in: folder)
    cache.record("appended", entry(500))
    cache.save()
    let appended = try fileIdentity(folder)
    try #require(truncate(folder + "/hashes", off_t(appended.size - 10)) == 0)
    let torn = HashCache(folder: folder)
    #expect(torn.count == 20, "the first block stands")
    #expect(torn.entries.digest(of: "data/3", status: status(3)) == digest(3))
    #expect(torn.entries.digest(of: "appended", status: status(500)) == nil)
    torn.record("after", entry(600))
    torn.save()
    #expect(try fileIdentity(folder).inode != appended.inode, "written whole, not after the torn block")
    let mended = HashCache(folder: folder)
    #expect(mended.count == 21)
    #expect(mended.entries.digest(of: "after", status: status(600)) == digest(600))
  }

  @Test func aFIFOPutWhereTheLoadedFileWasIsNotWaitedOnButReplaced() throws {
    let tree = try FileTree()
    let folder = tree.path(".oprun")
    let loaded = savedCache(10, in: folder)
    #expect(loaded.count == 10, "loaded before the file is replaced")
    try #require(unlink(folder + "/hashes") == 0 && mkfifo(folder + "/hashes", 0o644) == 0)
    loaded.record("new", entry(100))
    loaded.save()
    var status = stat()
    try #require(stat(folder + "/hashes", &status) == 0)
    #expect(status.st_mode & S_IFMT == S_IFREG, "written whole in its place")
    #expect(HashCache(folder: folder).count == 11)
  }

  @Test func aCacheOfAnEarlierLayoutIsReadAsEmptyAndReplaced() throws {
    let tree = try FileTree()
    let folder = tree.path(".oprun")
    tree.write(".oprun/hashes", "oprun hash cache 1\n" + String(repeating: "x", count: 200))
    let cache = HashCache(folder: folder)
    #expect(cache.count == 0)
    cache.record("a", entry(1))
    cache.save()
    #expect(HashCache(folder: folder).count == 1)
  }

  @Test func aCacheFolderThatCannotBeWrittenIsDoneWithout() throws {
    let tree = try FileTree()
    tree.write("in-the-way", "a file where the folder would go")
    tree.write("a.c", "a")
    let hasher = hasherLongAfter(cacheFolder: tree.path("in-the-way/.oprun"))
    #expect(try tree.snapshot(["a.c"], hasher: hasher).files.count == 1)
    hasher.cache.save()
    #expect(access(tree.path("in-the-way/.oprun/hashes"), F_OK) != 0)
  }
}

extension HashCache.Entries {
  /// One lookup, as a test makes them.
  fileprivate func digest(of path: String, status: FileStatus) -> String? {
    withLookup { $0.digest(of: path, status: status) }
  }
}
