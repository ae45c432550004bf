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
    func entry(hashedAt: Timestamp) -> HashCache.Entry { .init(status: status, hashedAt: hashedAt, digest: "d") }
    #expect(HashCache.trusts(entry(hashedAt: .init(seconds: 102, nanoseconds: 0)), now: status))
    #expect(
      !HashCache.trusts(entry(hashedAt: .init(seconds: 100, nanoseconds: 500)), now: status),
      "hashed in the same tick as the file's last change: it may have changed again unseen")
    var changed = status
    changed.changed = Timestamp(seconds: 101, nanoseconds: 0)
    #expect(!HashCache.trusts(entry(hashedAt: .init(seconds: 102, nanoseconds: 0)), now: changed))
    var moved = status
    moved.inode = 9
    #expect(!HashCache.trusts(entry(hashedAt: .init(seconds: 200, nanoseconds: 0)), now: moved))
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
