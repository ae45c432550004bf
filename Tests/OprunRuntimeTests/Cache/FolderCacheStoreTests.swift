import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// A folder cache (SPEC §14): what is put is got back whole, a blob whose bytes are not
/// its name is never stored, writers of one name leave one whole file, and trimming removes
/// the least recently used first.
@Suite struct FolderCacheStoreTests {
  /// Keys as oprun names them (a SHA-256), in an order their names do not share with their ages.
  static let (oldKey, middleKey, newKey, sameKey) = (
    String(repeating: "a", count: 64), String(repeating: "f", count: 64), String(repeating: "c", count: 64),
    String(repeating: "5", count: 64)
  )

  final class Folder {
    let path: String
    init() {
      var template = Array("/tmp/oprun-cache-test-XXXXXX".utf8CString)
      path = String(cString: mkdtemp(&template)!)
    }
    deinit { _ = system("rm -rf '\(path)'") }

    func write(_ name: String, _ text: String) -> String {
      let file = path + "/" + name
      let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      _ = Array(text.utf8).withUnsafeBytes { writeWhole(descriptor, $0) }
      close(descriptor)
      return file
    }
  }

  static func blob(of store: FolderCacheStore, _ digest: String, in folder: Folder) throws -> String? {
    try fetched(from: store, digest, in: folder)?.text
  }

  static func withBuffer<T>(_ body: (UnsafeMutableRawBufferPointer) throws -> T) rethrows -> T {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
    defer { buffer.deallocate() }
    return try body(buffer)
  }

  @Test func whatIsPutIsGotBack() throws {
    let folder = Folder()
    let store = FolderCacheStore(root: folder.path + "/cache")
    let source = folder.write("app", "binary bytes")
    let digest = ContentDigest.of(Array("binary bytes".utf8))
    #expect(try store.entry(key: "k1") == nil)
    #expect(try !store.hasBlob(digest))
    try Self.withBuffer { try store.putBlob(digest, from: source, buffer: $0) }
    try store.putEntry(key: "k1", Array("entry".utf8))
    #expect(try store.hasBlob(digest))
    #expect(try store.entry(key: "k1") == Array("entry".utf8))
    #expect(try Self.blob(of: store, digest, in: folder) == "binary bytes")
    #expect(try Self.blob(of: store, String(repeating: "0", count: 64), in: folder) == nil)
  }

  @Test func aFileThatIsNotItsDigestIsNotStored() throws {
    let folder = Folder()
    let store = FolderCacheStore(root: folder.path + "/cache")
    let source = folder.write("app", "changed since it was hashed")
    let digest = ContentDigest.of(Array("as hashed".utf8))
    #expect(throws: CacheProblem.self) { try Self.withBuffer { try store.putBlob(digest, from: source, buffer: $0) } }
    #expect(try !store.hasBlob(digest))
    #expect(store.storedFiles().isEmpty)
  }

  @Test func manyWritersOfOneEntryLeaveOneWholeFile() async throws {
    let folder = Folder()
    let store = FolderCacheStore(root: folder.path + "/cache")
    let texts = (0..<8).map { String(repeating: String($0), count: 100_000) }
    await withTaskGroup(of: Void.self) { group in
      for text in texts { group.addTask { try? store.putEntry(key: Self.sameKey, Array(text.utf8)) } }
    }
    let stored = try #require(try store.entry(key: Self.sameKey))
    #expect(texts.contains(String(decoding: stored, as: UTF8.self)))
    #expect(store.storedFiles().count == 1, "no temporary file is left")
  }

  @Test func trimmingRemovesTheLeastRecentlyUsedFirst() throws {
    let folder = Folder()
    let store = FolderCacheStore(root: folder.path + "/cache")
    // Last used long ago, in this order; names in another order, so that no order of names passes.
    for (second, key) in [(1000, Self.oldKey), (2000, Self.middleKey), (3000, Self.newKey)] {
      try store.putEntry(key: key, Array(repeating: 0x61, count: 1000))
      var times = [timespec(tv_sec: second, tv_nsec: 0), timespec(tv_sec: second, tv_nsec: 0)]
      #expect(utimensat(AT_FDCWD, store.entryPath(key), &times, 0) == 0)
    }
    // Reading the oldest makes it the most recently used.
    _ = try store.entry(key: Self.oldKey)
    #expect(store.trim(to: 2000) == 1000)
    #expect(try store.entry(key: Self.middleKey) == nil)
    #expect(try store.entry(key: Self.oldKey) != nil)
    #expect(try store.entry(key: Self.newKey) != nil)
  }

  @Test func eachRunsCountsAreKept() {
    let folder = Folder()
    let store = FolderCacheStore(root: folder.path + "/cache")
    store.runEnded(hits: 3, misses: 1, stored: 1)
    store.runEnded(hits: 0, misses: 0, stored: 0)
    store.runEnded(hits: 0, misses: 2, stored: 2)
    #expect(store.runCounts().map { [$0.hits, $0.misses, $0.stored] } == [[3, 1, 1], [0, 2, 2]])
  }

  /// A store that remembers the blobs it read whole, its readings seeming to happen a minute
  /// after now: a blob just put is then as old beside its reading as one put by an earlier run.
  static func storeRememberingBlobs(in folder: Folder) -> FolderCacheStore {
    FolderCacheStore(
      root: folder.path + "/cache", maxSize: nil, marksUse: true, verifiedBlobs: HashCache(folder: nil),
      clock: { Timestamp.now().minus(seconds: -60) })
  }

  /// The bytes of the blob as a restore would get them, and their SHA-256 as the writer tells
  /// it; nil when there is no such blob.
  static func fetched(from store: FolderCacheStore, _ digest: String, in folder: Folder) throws -> (
    text: String, digest: String
  )? {
    let path = folder.path + "/fetched"
    let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    defer { close(descriptor) }
    let writer = BlobWriter(descriptor: descriptor)
    guard try store.blob(digest, into: writer) else { return nil }
    guard case .success(let bytes) = FileContents.read(path: path, limit: 1 << 20) else { return nil }
    return (String(decoding: bytes, as: UTF8.self), writer.digest())
  }

  /// `text` put in `store` as a blob, from a file in `folder`; its digest.
  static func put(_ text: String, into store: FolderCacheStore, in folder: Folder) throws -> String {
    let source = folder.write("app", text)
    let digest = ContentDigest.of(Array(text.utf8))
    try withBuffer { try store.putBlob(digest, from: source, buffer: $0) }
    return digest
  }

  /// What `store` remembers of the blob at `path`, as its file is now.
  static func remembered(_ path: String, by store: FolderCacheStore) throws -> String? {
    let found = try #require(FileStatus.of(path, followingLink: false))
    return store.verifiedBlobs?.entries.withLookup { $0.digest(of: path, status: found) }
  }

  @Test func aBlobFoundWholeIsKnownUntilSomeoneRewritesIt() throws {
    let folder = Folder()
    let store = Self.storeRememberingBlobs(in: folder)
    let digest = try Self.put("binary bytes", into: store, in: folder)
    let blob = store.blobPath(digest)

    let first = try #require(try Self.fetched(from: store, digest, in: folder))
    #expect(first.text == "binary bytes" && first.digest == digest)
    #expect(try Self.remembered(blob, by: store) == digest)
    let copied = try #require(try Self.fetched(from: store, digest, in: folder))
    #expect(copied == first, "copied as it was")

    // Rewritten in place, the same size, its modification time put back: only the change
    // time, which no one but the kernel sets, tells; the blob is read again, and its bytes
    // are not taken for what its name says.
    var before = stat()
    #expect(stat(blob, &before) == 0)
    #expect(chmod(blob, 0o600) == 0)
    _ = folder.write("cache/cas/" + digest.prefix(2) + "/" + digest, "BINARY BYTES")
    var times = [before.st_atim, before.st_mtim]
    #expect(utimensat(AT_FDCWD, blob, &times, 0) == 0)
    let rewritten = try #require(try Self.fetched(from: store, digest, in: folder))
    #expect(rewritten.text == "BINARY BYTES")
    #expect(rewritten.digest == ContentDigest.of(Array("BINARY BYTES".utf8)))
  }

  @Test func aBlobAnotherUserOwnsIsReadAtEveryRestore() throws {
    let folder = Folder()
    let store = Self.storeRememberingBlobs(in: folder)
    let digest = try Self.put("their bytes", into: store, in: folder)
    let blob = store.blobPath(digest)
    #expect(chown(blob, 65534, 65534) == 0)
    #expect(try Self.fetched(from: store, digest, in: folder)?.text == "their bytes")
    #expect(try Self.remembered(blob, by: store) == nil)
  }

  @Test func aHitMarksABlobLastUsedLongAgoUsed() throws {
    let folder = Folder()
    let store = Self.storeRememberingBlobs(in: folder)
    let digest = try Self.put("old bytes", into: store, in: folder)
    var times = [timespec(tv_sec: 1000, tv_nsec: 0), timespec(tv_sec: 1000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, store.blobPath(digest), &times, 0) == 0)
    #expect(try Self.fetched(from: store, digest, in: folder)?.text == "old bytes")
    let marked = try #require(FileStatus.of(store.blobPath(digest), followingLink: false))
    #expect(Timestamp.now().minus(seconds: 60) < marked.modified, "trimming sees it as used now")
  }
}
