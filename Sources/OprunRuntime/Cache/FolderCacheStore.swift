import Glibc
import OprunCore

/// A cache in a folder (SPEC §14), on this machine or shared (NFS, a CI cache folder):
/// `ac/KE/KEY` holds entries, `cas/DI/DIGEST` blobs, `runs` one line per run's counts.
/// Every file is written under a temporary name in its own folder and renamed into place,
/// so a reader sees a whole file or none, and two writers of one name (on one machine or
/// many) both succeed and leave one whole file: rename is atomic on a local disk and on NFS.
/// A hit touches what it read, so trimming to `maxSize` removes the least recently used first.
public final class FolderCacheStore: CacheStore {
  public let root: String
  public let maxSize: Int?
  /// Whether a hit marks what it read used (for trimming); `-n` only looks.
  let marksUse: Bool

  /// The blobs this user has read and found to hold what their names say, by path and
  /// `stat` (a hash cache in `verified-blobs/` of the user's oprun state folder, beside the
  /// index of runs): one whose `stat` is the same since is copied without being read. Anyone
  /// who rewrites a blob gives it a new change time, which only the kernel sets, so it is read
  /// and checked again; and the memory is this user's own, where no one else can vouch for
  /// a blob. Nil for `-n`, and where the user has no state folder.
  let verifiedBlobs: HashCache?
  /// The wall clock, read as a blob's reading begins: the racy-file rule of ``HashCache``
  /// compares the blob's times with it.
  private let clock: @Sendable () -> Timestamp

  /// The folder cache at `root`, knowing nothing of what this user verified.
  public convenience init(root: String, maxSize: Int? = nil, marksUse: Bool = true) {
    self.init(root: root, maxSize: maxSize, marksUse: marksUse, verifiedBlobs: nil)
  }

  init(
    root: String, maxSize: Int?, marksUse: Bool, verifiedBlobs: HashCache?,
    clock: @escaping @Sendable () -> Timestamp = Timestamp.now
  ) {
    self.root = root
    self.maxSize = maxSize
    self.marksUse = marksUse
    self.verifiedBlobs = verifiedBlobs
    self.clock = clock
  }

  /// What this user's runs know of blobs they read (``verifiedBlobs``); nil where the user
  /// has no state folder of their own.
  static func verifiedBlobsOfThisUser() -> HashCache? {
    guard let index = RunIndex.ofThisUser(), case .success(let folder?) = index.openFolder(creating: true) else {
      return nil
    }
    close(folder)
    return HashCache(folder: index.folder + "/verified-blobs")
  }

  public var name: String { "folder " + root }

  func entryPath(_ key: String) -> String { root + "/ac/" + key.prefix(2) + "/" + key }
  func blobPath(_ digest: String) -> String { root + "/cas/" + digest.prefix(2) + "/" + digest }

  public func entry(key: String) throws(CacheProblem) -> [UInt8]? {
    let path = entryPath(key)
    switch FileContents.read(path: path, limit: 64 << 20, regularOnly: true) {
    case .success(let bytes):
      touch(path)
      return bytes
    case .failure(.system(let error)) where error == ENOENT || error == ENOTDIR:
      return nil
    case .failure(let failure):
      throw CacheProblem("cannot read \(path): \(failure.message)")
    }
  }

  public func blob(_ digest: String, into writer: BlobWriter) throws(CacheProblem) -> Bool {
    let path = blobPath(digest)
    // Not blocking: a FIFO planted under a blob's name must not hold the run.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      if errno == ENOENT || errno == ENOTDIR { return false }
      throw problem("cannot read", path)
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw CacheProblem("\(path) is not a regular file")
    }
    let found = FileStatus(status)
    let marked = markUse(path, found)
    // Only a blob no one but this user (or root) may write can be vouched for by its `stat`:
    // one another user owns, they could change through a mapping without changing its times.
    let remembered =
      status.st_uid == geteuid() && status.st_mode & 0o022 == 0 ? verifiedBlobs : nil
    if let remembered, remembered.entries.withLookup({ $0.digest(of: path, status: found) }) == digest {
      guard writer.copy(from: descriptor, count: Int(found.size), knownDigest: digest) else {
        throw CacheProblem("cannot write a restored file: \(errorMessage(writer.failure ?? EIO))")
      }
      // Written to while it was copied: its change time moved, and it is read as any other.
      var after = stat()
      if fstat(descriptor, &after) == 0, FileStatus(after) == found { return true }
      writer.restart()
    }
    let startedAt = clock()
    posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let count = read(descriptor, buffer.baseAddress, buffer.count)
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else { throw problem("cannot read", path) }
      if count == 0 { break }
      guard writer.write(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else {
        throw CacheProblem("cannot write a restored file: \(errorMessage(writer.failure ?? EIO))")
      }
    }
    // What was read is what its name says, and stays known while its `stat` stays; a blob
    // whose times were just set to mark it used is read again next time.
    if !marked, writer.digest() == digest {
      remembered?.record(path, HashCache.Entry(status: found, hashedAt: startedAt, digest: digest))
    }
    return true
  }

  /// Marks the blob at `path`, found `status`, used, when it was last marked long enough ago
  /// to matter for trimming: setting its times every hit would make every hit read it again
  /// (``verifiedBlobs``). True when it did.
  private func markUse(_ path: String, _ status: FileStatus) -> Bool {
    guard marksUse, status.modified < Timestamp.now().minus(seconds: Self.useMarkInterval) else { return false }
    touch(path)
    return true
  }

  /// How often, at most, a hit marks a blob used: trimming tells blobs apart by the hour.
  static let useMarkInterval: Int64 = 3600

  public func hasBlob(_ digest: String) throws(CacheProblem) -> Bool {
    access(blobPath(digest), F_OK) == 0
  }

  public func putBlob(_ digest: String, from path: String, buffer: UnsafeMutableRawBufferPointer) throws(CacheProblem) {
    let source = open(path, O_RDONLY | O_CLOEXEC)
    guard source >= 0 else { throw problem("cannot read", path) }
    defer { close(source) }
    let target = blobPath(digest)
    let (temporary, descriptor) = try createTemporary(beside: target)
    // An output others may not read stays so in the cache: its blob is readable by whom the
    // output was, and always by its owner.
    var sourceStatus = stat()
    if fstat(source, &sourceStatus) == 0 { _ = fchmod(descriptor, 0o600 | (sourceStatus.st_mode & 0o044)) }
    let writer = BlobWriter(descriptor: descriptor)
    var failed: CacheProblem?
    while true {
      let count = read(source, buffer.baseAddress, buffer.count)
      if count < 0, errno == EINTR { continue }
      if count < 0 { failed = problem("cannot read", path) }
      if count <= 0 { break }
      guard writer.write(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else {
        failed = CacheProblem("cannot write \(temporary): \(errorMessage(writer.failure ?? EIO))")
        break
      }
    }
    close(descriptor)
    if failed == nil, writer.digest() != digest { failed = CacheProblem("\(path) changed while it was stored") }
    if let failed {
      unlink(temporary)
      throw failed
    }
    try rename(temporary, to: target)
  }

  public func putEntry(key: String, _ bytes: [UInt8]) throws(CacheProblem) {
    let target = entryPath(key)
    let (temporary, descriptor) = try createTemporary(beside: target)
    let error = bytes.withUnsafeBytes { writeWhole(descriptor, $0) }
    // The entry names blobs already in place: it must reach the disk after them, whole.
    let synced = error == 0 && fsync(descriptor) == 0
    close(descriptor)
    guard synced else {
      unlink(temporary)
      throw CacheProblem("cannot write \(temporary): \(errorMessage(error != 0 ? error : errno))")
    }
    try rename(temporary, to: target)
  }

  public func runEnded(hits: Int, misses: Int, stored: Int) {
    verifiedBlobs?.save()
    if hits + misses + stored > 0 {
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      let line = "\(now.tv_sec) \(hits) \(misses) \(stored)\n"
      if makeFolders(root) {
        let descriptor = open(root + "/runs", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if descriptor >= 0 {
          _ = Array(line.utf8).withUnsafeBytes { writeWhole(descriptor, $0) }
          close(descriptor)
        }
      }
    }
    if let maxSize { _ = trim(to: maxSize) }
  }

  // MARK: What `oprun cache stats` and `clean` read

  /// One stored file: an entry or a blob, its size and when it was last used.
  struct StoredFile {
    var path: String
    var size: Int
    /// Nanoseconds since 1970 of its modification time, which a hit sets.
    var lastUsed: Int
    var isEntry: Bool
  }

  /// Every entry and blob, in no order.
  func storedFiles() -> [StoredFile] {
    var files: [StoredFile] = []
    for (kind, isEntry) in [("ac", true), ("cas", false)] {
      let top = root + "/" + kind
      // Only what oprun names there: a SHA-256 in the folder of its first two digits.
      for shard in FolderNames.list(top) where shard.utf8.count == 2 {
        for name in FolderNames.list(top + "/" + shard) where CacheEntry.isDigest(name) && name.hasPrefix(shard) {
          let path = top + "/" + shard + "/" + name
          var status = stat()
          guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
          files.append(
            StoredFile(
              path: path, size: Int(status.st_size),
              lastUsed: Int(status.st_mtim.tv_sec) * 1_000_000_000 + Int(status.st_mtim.tv_nsec),
              isEntry: isEntry))
        }
      }
    }
    return files
  }

  /// Removes the least recently used files until the rest hold at most `maxSize` bytes;
  /// the bytes removed.
  @discardableResult
  func trim(to maxSize: Int) -> Int {
    let files = storedFiles()
    var total = files.reduce(0) { $0 + $1.size }
    guard total > maxSize else { return 0 }
    var removed = 0
    for file in files.sorted(by: { ($0.lastUsed, $0.path) < ($1.lastUsed, $1.path) }) where total > maxSize {
      if unlink(file.path) == 0 || errno == ENOENT {
        total -= file.size
        removed += file.size
      }
    }
    return removed
  }

  /// Removes every entry and blob (the counts of past runs stay); the bytes removed.
  @discardableResult
  func removeEverything() -> Int {
    trim(to: 0)
  }

  /// The counts of each run this folder served, oldest first: (Unix time, hits, misses, stored).
  func runCounts() -> [(time: Int, hits: Int, misses: Int, stored: Int)] {
    guard case .success(let bytes) = FileContents.read(path: root + "/runs", limit: 64 << 20) else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
      // A count no run could reach is a damaged line: left out, so that sums cannot overflow.
      let numbers = line.split(separator: " ").compactMap { Int($0) }.filter { (0..<(1 << 48)).contains($0) }
      guard numbers.count == 4 else { return nil }
      return (numbers[0], numbers[1], numbers[2], numbers[3])
    }
  }

  // MARK: Writing

  /// Marks `path` used now, for trimming; a cache on a read-only mount is not marked.
  private func touch(_ path: String) {
    guard marksUse else { return }
    _ = utimensat(AT_FDCWD, path, nil, 0)
  }

  /// A new file beside `target`, under a name no other writer uses, with its folders made.
  private func createTemporary(beside target: String) throws(CacheProblem) -> (String, Int32) {
    let folder = PathParts.folder(of: target)
    guard makeFolders(folder) else { throw problem("cannot create", folder) }
    let temporary = folder + "/" + TemporaryName.next("tmp")
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw problem("cannot create", temporary) }
    return (temporary, descriptor)
  }

  private func rename(_ temporary: String, to target: String) throws(CacheProblem) {
    guard Glibc.rename(temporary, target) == 0 else {
      let error = problem("cannot rename into", target)
      unlink(temporary)
      throw error
    }
  }

  /// `folder` and every folder above it that is missing; false when one cannot be made.
  func makeFolders(_ folder: String) -> Bool {
    if mkdir(folder, 0o755) == 0 || errno == EEXIST { return true }
    guard errno == ENOENT else { return false }
    let parent = PathParts.folder(of: folder)
    guard parent != folder, makeFolders(parent) else { return false }
    return mkdir(folder, 0o755) == 0 || errno == EEXIST
  }

  private func problem(_ what: String, _ path: String) -> CacheProblem {
    CacheProblem("\(what) \(path): \(errorMessage(errno))")
  }
}

/// The names in a folder, `.` and `..` left out; none when it cannot be read.
enum FolderNames {
  static func list(_ folder: String) -> [String] {
    guard let directory = opendir(folder) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != ".", name != ".." { names.append(name) }
    }
    return names
  }
}
