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
