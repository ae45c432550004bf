import Glibc
import Synchronization

/// Where a cache keeps its entries and blobs (SPEC §14): a folder, a server, or any other
/// store that can get and put bytes by name. Entries are found by a job's key, blobs by the
/// SHA-256 of their bytes. Every method blocks its caller: the run calls them on the cache's
/// own threads (``OutputCache``), never on its event loop. A store is shared by those threads.
///
/// A new kind of store (an S3 bucket, say) is a new type conforming to this: nothing of the
/// run changes.
public protocol CacheStore: AnyObject, Sendable {
  /// How a user names it (`folder /srv/cache`, `http://cache:8080/oprun`), for messages.
  var name: String { get }
  /// The entry stored under `key`; nil when there is none.
  func entry(key: String) throws(CacheProblem) -> [UInt8]?
  /// Writes the blob whose SHA-256 is `digest` into `writer`; false when there is none.
  func blob(_ digest: String, into writer: BlobWriter) throws(CacheProblem) -> Bool
  /// Whether a blob with that SHA-256 is stored.
  func hasBlob(_ digest: String) throws(CacheProblem) -> Bool
  /// Stores the bytes of the file at `path` as the blob `digest`: they must hash to it, or
  /// nothing is stored (the file changed since it was hashed).
  func putBlob(_ digest: String, from path: String, buffer: UnsafeMutableRawBufferPointer) throws(CacheProblem)
  /// Stores `bytes` as the entry of `key`, replacing one that may be there: two runs storing
  /// one key at once both succeed and leave one whole entry.
  func putEntry(key: String, _ bytes: [UInt8]) throws(CacheProblem)
  /// The run ended having hit, missed and stored this many times (a folder keeps the
  /// counts for `oprun cache stats`, and is trimmed to its size).
  func runEnded(hits: Int, misses: Int, stored: Int)
}

extension CacheStore {
  public func runEnded(hits: Int, misses: Int, stored: Int) {}
}

/// Why the cache could not answer: it counts as a miss (SPEC §14), with one warning per run.
public struct CacheProblem: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  /// The blob found not to hold what its name says: stored again when a job that ran makes it.
  public var corruptBlob: String?
  public init(_ message: String, corruptBlob: String? = nil) {
    self.message = message
    self.corruptBlob = corruptBlob
  }
  public var description: String { message }
}

/// Bytes on their way into a file, hashed as they go: a blob being restored is verified
/// against its name before it may take an output's place.
public final class BlobWriter {
  private let descriptor: Int32
  private var hash = SHA256()
  public private(set) var count = 0
  /// Set once a write failed, with its errno.
  public private(set) var failure: Int32?

  /// Set when the run ends: a write after it fails (ECANCELED), so the file is given up.
  private let work: CacheWork?

  public init(descriptor: Int32) {
    self.descriptor = descriptor
    work = nil
  }

  init(descriptor: Int32, work: CacheWork?) {
    self.descriptor = descriptor
    self.work = work
  }

  /// Appends `bytes`; false once a write failed.
  @discardableResult
  public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard failure == nil, finalDigest == nil else { return false }
    if work?.isStopping == true {
      failure = ECANCELED
      return false
    }
    hash.update(bufferPointer: bytes)
    count += bytes.count
    let error = writeWhole(descriptor, bytes)
    if error != 0 {
      failure = error
      return false
    }
    return true
  }

  /// Copies the `count` bytes of `source` from its start, known to hash to `digest`, in
  /// the kernel where it can (`copy_file_range`: no pass through this process, and a clone
  /// where the file system shares blocks); false once a copy failed.
  func copy(from source: Int32, count: Int, knownDigest: String) -> Bool {
    guard failure == nil, self.count == 0, finalDigest == nil else { return false }
    if work?.isStopping == true {
      failure = ECANCELED
      return false
    }
    let error = copyWhole(from: source, count: count, to: descriptor)
    if error != 0 {
      failure = error
      return false
    }
    self.count = count
    finalDigest = knownDigest
    return true
  }

  /// Forgets what was written (a retry starts the file again).
  func restart() {
    hash = SHA256()
    finalDigest = nil
    count = 0
    _ = ftruncate(descriptor, 0)
    _ = lseek(descriptor, 0, SEEK_SET)
  }

  /// Set once the digest is known: what ``copy(from:count:knownDigest:)`` was told, or the
  /// hash of what was written, finished.
  private var finalDigest: String?

  /// The SHA-256 of everything written, as lower-case hex; nothing more may be written.
  func digest() -> String {
    if let finalDigest { return finalDigest }
    let digest = ContentDigest.hex(hash.finalize())
    finalDigest = digest
    return digest
  }
}

/// Names for files being written, unique among every writer of one folder: this process's
/// pid, a count of its own, and the time, behind a dot.
enum TemporaryName {
  private static let count = Atomic<UInt64>(0)

  static func next(_ prefix: String) -> String {
    let number = count.add(1, ordering: .relaxed).newValue
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return ".\(prefix)-\(getpid())-\(number)-" + String(UInt64(now.tv_nsec), radix: 36)
  }
}
