import Glibc
import OprunCore

/// Takes snapshots of file sets (SPEC §10): walks, then hashes what the cache cannot vouch
/// for on the hashing threads. Thread-safe: one per manifest serves the whole run.
public final class FileHasher: Sendable {
  /// What the hasher has read since it was made: how many files and bytes of content.
  public struct ContentRead: Sendable, Equatable {
    public var files: Int
    public var bytes: Int
  }

  public let cache: HashCache
  let pool: HashingPool
  /// The wall clock, read as each file's reading begins: the cache's racy-file rule compares
  /// file times with it.
  let clock: @Sendable () -> Timestamp
  private let read = Locked(ContentRead(files: 0, bytes: 0))

  /// A hasher whose cache is kept in `cacheFolder` (the manifest's `.oprun`), or in memory
  /// only when nil. The cache is written by `cache.save()`, not before.
  public convenience init(cacheFolder: String?) {
    self.init(cacheFolder: cacheFolder, clock: Timestamp.now)
  }

  init(cacheFolder: String?, clock: @escaping @Sendable () -> Timestamp) {
    cache = HashCache(folder: cacheFolder)
    pool = HashingPool.shared
    self.clock = clock
  }

  /// Files and bytes read for their content so far: none for a file the cache vouched for.
  public var contentRead: ContentRead { read.withLock { $0 } }

  /// The snapshot of `request`, taken on the calling thread and the hashing threads.
  public func snapshot(_ request: FileSetRequest) -> FileSnapshot {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HashingPool.bufferSize, alignment: 64)
    defer { buffer.deallocate() }
    return snapshot(request, buffer: buffer)
  }

  /// The snapshot of `request`, reading on this thread through `buffer`.
  func snapshot(_ request: FileSetRequest, buffer: UnsafeMutableRawBufferPointer) -> FileSnapshot {
    let selection = FileSelection(request)
    var records = selection.files.map { file in
      FileRecord(path: file.recordedPath, kind: file.found.status.kind, digest: "")
    }
    var toRead: [Int] = []
    for (index, file) in selection.files.enumerated() {
      switch records[index].kind {
      case .file:
        if let digest = cache.digest(of: file.recordedPath, status: file.found.status) {
          records[index].digest = digest
        } else {
          toRead.append(index)
        }
      case .link:
        if let digest = ContentDigest.ofLink(file.path) {
          records[index].digest = digest
        } else {
          records[index].kind = .unreadable
        }
      case .fifo, .device, .socket, .unreadable: break
      }
    }
    for (index, reading) in zip(toRead, readAll(toRead.map { selection.files[$0] }, buffer: buffer)) {
      records[index].kind = reading.kind
      records[index].digest = reading.digest
      if let status = reading.status, reading.kind == .file {
        cache.record(records[index].path, .init(status: status, hashedAt: reading.startedAt, digest: reading.digest))
      }
    }
    return FileSnapshot(files: records, unmatchedPatterns: selection.unmatchedPatterns)
  }

  /// The contents of `files`, read across the hashing threads and this one.
  private func readAll(_ files: [FileSelection.File], buffer: UnsafeMutableRawBufferPointer) -> [ContentDigest.Reading]
  {
    let readings = ReadingSlots(count: files.count)
    let clock = clock
    pool.forEach(files.count, callerBuffer: buffer) { index, buffer in
      let file = files[index]
      let reading = ContentDigest.readFile(
        file.path, followingLink: file.found.followsLink, startedAt: clock(), buffer: buffer)
      readings.put(index, reading)
    }
    let all = readings.all
    read.withLock { read in
      read.files += all.count { $0.kind == .file }
      read.bytes += all.reduce(0) { $0 + $1.bytesRead }
    }
    return all
  }
}

/// One slot per file, each written by the one thread that read that file, read once all are.
private final class ReadingSlots: @unchecked Sendable {
  private var slots: [ContentDigest.Reading?]
  private let lock = ConditionLock()

  init(count: Int) { slots = Array(repeating: nil, count: count) }

  func put(_ index: Int, _ reading: ContentDigest.Reading) { lock.withLock { slots[index] = reading } }

  var all: [ContentDigest.Reading] { lock.withLock { slots.map { $0! } } }
}
