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
  /// Snapshots begun before they were asked for, each taken by the one request for it.
  private let prefetched = Locked<[FileSetRequest: PendingValue<FileSnapshot>]>([:])
  /// Under `--watch`, what the watcher vouches for (``WatchedLooks``); given before any walk.
  private let looks = Locked<WatchedLooks?>(nil)

  /// Has every walk from now on take the statuses `looks` vouches for, and record its own there.
  func walk(with looks: WatchedLooks) {
    self.looks.withLock { $0 = looks }
  }

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

  /// Begins the snapshot of `request` on the hashing threads, for the first request for
  /// it to take: a run sets itself up meanwhile.
  public func prefetch(_ request: FileSetRequest) {
    prefetched.withLock { prefetched in
      guard prefetched[request] == nil else { return }
      prefetched[request] = PendingValue(on: pool) { self.takeSnapshot(request) }
    }
  }

  /// The snapshot of `request` begun by ``prefetch(_:)``, taken out: the next request takes
  /// its own.
  func claimPrefetched(_ request: FileSetRequest) -> PendingValue<FileSnapshot>? {
    prefetched.withLock { $0.removeValue(forKey: request) }
  }

  /// The snapshot of `request`, taken on the calling thread and the hashing threads.
  public func snapshot(_ request: FileSetRequest) -> FileSnapshot {
    claimPrefetched(request)?.value ?? takeSnapshot(request)
  }

  private func takeSnapshot(_ request: FileSetRequest) -> FileSnapshot {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HashingPool.bufferSize, alignment: 64)
    defer { buffer.deallocate() }
    return snapshot(request, buffer: buffer)
  }

  /// The snapshot of `request`, reading on this thread through `buffer`.
  func snapshot(_ request: FileSetRequest, buffer: UnsafeMutableRawBufferPointer) -> FileSnapshot {
    let selection = FileSelection(request, looks: looks.withLock { $0 })
    let files = selection.files
    var records = recordsKnown(files, buffer: buffer)
    let toRead = records.indices.filter { records[$0].kind == .file && records[$0].digest.isEmpty }
    for (index, reading) in zip(toRead, readAll(toRead.map { files[$0] }, buffer: buffer)) {
      records[index].kind = reading.kind
      records[index].digest = reading.digest
      if let status = reading.status, reading.kind == .file {
        cache.record(records[index].path, .init(status: status, hashedAt: reading.startedAt, digest: reading.digest))
      }
    }
    return FileSnapshot(files: records, unmatchedPatterns: selection.unmatchedPatterns, on: pool, buffer: buffer)
  }

  /// The record of each of `files` as far as it is known without reading content: a
  /// regular file the cache cannot vouch for has an empty digest. Looked up across the
  /// hashing threads and this one, a slice each: on a large set the lookups cost as much as
  /// the walk.
  private func recordsKnown(_ files: [FileSelection.File], buffer: UnsafeMutableRawBufferPointer) -> [FileRecord] {
    let sliceSize = 1024
    let cache = cache.entries
    // Each slice's records are written in place by the thread that looks it up: gathering
    // them afterwards would copy every one.
    return Array(initializingInPlace: files.count) { records in
      let records = DisjointSlices(records)
      pool.forEach((files.count + sliceSize - 1) / sliceSize, callerBuffer: buffer) { slice, _ in
        let range = slice * sliceSize..<min(files.count, (slice + 1) * sliceSize)
        cache.withLookup { cache in
          for index in range { records.initialize(index, to: Self.recordKnown(files[index], cache: cache)) }
        }
      }
    }
  }

  private static func recordKnown(_ file: FileSelection.File, cache: HashCache.Lookup) -> FileRecord {
    var record = FileRecord(path: file.recordedPath, kind: file.found.status.kind, digest: "")
    switch record.kind {
    case .file:
      record.digest = cache.digest(of: file.recordedPath, status: file.found.status) ?? ""
    case .link:
      if let digest = ContentDigest.ofLink(file.path) { record.digest = digest } else { record.kind = .unreadable }
    case .fifo, .device, .socket, .unreadable: break
    }
    return record
  }

  /// The contents of `files`, read across the hashing threads and this one.
  private func readAll(_ files: [FileSelection.File], buffer: UnsafeMutableRawBufferPointer) -> [ContentDigest.Reading]
  {
    let clock = clock
    let all = [ContentDigest.Reading](initializingInPlace: files.count) { readings in
      let readings = DisjointSlices(readings)
      pool.forEach(files.count, callerBuffer: buffer) { index, buffer in
        let file = files[index]
        let reading = ContentDigest.readFile(
          file.path, followingLink: file.found.followsLink, startedAt: clock(), buffer: buffer)
        readings.initialize(index, to: reading)
      }
    }
    read.withLock { read in
      read.files += all.count { $0.kind == .file }
      read.bytes += all.reduce(0) { $0 + $1.bytesRead }
    }
    return all
  }
}
