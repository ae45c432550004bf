import Glibc
import OprunCore

/// A run's cache of outputs (SPEC §14), as the driver uses it: it makes keys, and looks up,
/// restores and stores on threads of its own, handing every answer back on the run's loop
/// (as file snapshots come back), so that nothing of it ever blocks the loop.
public final class OutputCache {
  public let store: any CacheStore
  /// Look up, never store.
  public let readOnly: Bool
  /// The operating system and architecture every key holds.
  let platform: String
  private let delivery: LoopDelivery<CacheAnswer>
  private let pool: HashingPool
  /// The values of the variables `cache-env` names, read once each.
  private var environmentValues: [String: String?] = [:]
  /// Restores under way, which the run stops and waits for when it ends.
  private let work = CacheWork()
  /// Blobs a restore of this run found corrupt: a store puts them again, not trusting that
  /// one by that name is there.
  private let corruptBlobs = Locked<Set<String>>([])
  /// The run's hash cache: a restore tells it what the files it wrote hold.
  private let hashes: HashCache?
  /// Stores under way: the run waits for them at its end.
  public private(set) var storesUnderWay = 0

  /// Threads that wait on a disk or a server: more than the CPUs, since they mostly wait.
  static let threadCount = 8

  /// A cache in `store`, answering on `loop`, which must be run on the calling thread;
  /// `hashes` is told what each restored file holds.
  public init(store: any CacheStore, readOnly: Bool, loop: EventLoop, hashes: HashCache? = nil) throws(SystemError) {
    self.store = store
    self.readOnly = readOnly
    self.hashes = hashes
    platform = Self.platform
    delivery = try LoopDelivery(loop: loop)
    pool = HashingPool(threadCount: Self.threadCount)
  }

  /// The cache `settings` name, answering on `loop`.
  public static func open(_ settings: CacheSettings, loop: EventLoop, hashes: HashCache?) throws(SystemError)
    -> OutputCache
  {
    try OutputCache(store: settings.store, readOnly: settings.readOnly, loop: loop, hashes: hashes)
  }

  /// `Linux x86_64`: what a key holds of the machine, since outputs built here may not run elsewhere.
  static var platform: String {
    var names = utsname()
    uname(&names)
    func text<T>(_ field: T) -> String {
      withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    return text(names.sysname) + " " + text(names.machine)
  }

  /// The key of a job with this fingerprint, inputs' digest, dependencies' results and `cache-env`.
  func key(fingerprint: String, inputs: String, dependencyResults: [String], cacheEnv: [String]) -> String {
    Self.key(
      platform: platform, fingerprint: fingerprint, inputs: inputs, dependencyResults: dependencyResults,
      environment: cacheEnv.map { name in (name: name, value: value(of: name)) })
  }

  /// The key of a job on `platform` with this fingerprint, inputs' digest, dependencies'
  /// results and values of its `cache-env` variables.
  static func key(
    platform: String, fingerprint: String, inputs: String, dependencyResults: [String],
    environment: [(name: String, value: String?)]
  ) -> String {
    let text = CacheKeyText(
      platform: platform, fingerprint: fingerprint, inputs: inputs, dependencyResults: dependencyResults,
      environment: environment)
    return ContentDigest.of(text.bytes)
  }

  private func value(of name: String) -> String? {
    if let known = environmentValues[name] { return known }
    let value = getenv(name).map { String(cString: $0) }
    environmentValues[name] = value
    return value
  }

  /// Looks up `key`, then calls `deliver` with the entry (nil when there is none, or it is no
  /// entry oprun may use) on the loop.
  func lookUp(_ key: String, then deliver: @escaping (Result<CacheEntry?, CacheProblem>) -> Void) {
    let ticket = delivery.expect { answer in
      if case .lookedUp(let result) = answer { deliver(result) }
    }
    let store = store
    pool.submit { _ in
      let result: Result<CacheEntry?, CacheProblem>
      do throws(CacheProblem) {
        if let bytes = try store.entry(key: key) {
          result = CacheEntry.decode(bytes).map { $0 }.mapError { CacheProblem("entry \(key): \($0.message)") }
        } else {
          result = .success(nil)
        }
      } catch {
        result = .failure(error)
      }
      ticket.post(.lookedUp(result))
    }
  }

  /// Restores `entry` as `restore` says, then calls `deliver` with the bytes written on the loop.
  func restore(
    _ entry: CacheEntry, _ restore: CacheRestore, then deliver: @escaping (Result<Int, CacheProblem>) -> Void
  ) {
    let ticket = delivery.expect { answer in
      if case .restored(let result) = answer { deliver(result) }
    }
    let store = store
    var restore = restore
    restore.work = work
    restore.hashes = hashes
    work.begin()
    let corruptBlobs = corruptBlobs
    pool.submit { [work, restore] _ in
      let result = restore.restore(entry, from: store)
      if case .failure(let problem) = result, let digest = problem.corruptBlob {
        corruptBlobs.withLock { _ = $0.insert(digest) }
      }
      ticket.post(.restored(result))
      work.end()
    }
  }

  /// Stores the files `outputs` (paths relative to `manifestFolder`, with their SHA-256) and
  /// what the job printed under `key`, then calls `deliver` with the bytes stored on the loop.
  /// The run waits for every store at its end (``storesUnderWay``).
  func store(
    _ key: String, outputs: [FileRecord], printed: PrintedOutput, duration: Double, manifestFolder: String,
    then deliver: @escaping (Result<Int, CacheProblem>) -> Void
  ) {
    storesUnderWay += 1
    let ticket = delivery.expect { [unowned self] answer in
      storesUnderWay -= 1
      if case .stored(let result) = answer { deliver(result) }
    }
    let store = store
    let corruptBlobs = corruptBlobs
    pool.submit { buffer in
      var files: [CacheEntry.File] = []
      do throws(CacheProblem) {
        for output in outputs {
          let path = manifestFolder + "/" + output.path
          var status = stat()
          guard stat(path, &status) == 0 else {
            throw CacheProblem("cannot read \(path): \(errorMessage(errno))")
          }
          let knownCorrupt = corruptBlobs.withLock { $0.contains(output.digest) }
          let stored = knownCorrupt ? false : try store.hasBlob(output.digest)
          if !stored {
            try store.putBlob(output.digest, from: path, buffer: buffer)
          }
          files.append(
            CacheEntry.File(
              path: output.path, mode: UInt32(status.st_mode & 0o7777), size: Int(status.st_size), sha256: output.digest
            ))
        }
        let entry = CacheEntry(
          files: files, printed: printed.pieces, printedLeftOut: printed.linesLeftOut, duration: duration)
        try store.putEntry(key: key, entry.encoded())
        ticket.post(.stored(.success(entry.bytes)))
      } catch {
        ticket.post(.stored(.failure(error)))
      }
    }
  }

  /// The run ended with these counts: a folder records them and is trimmed. Blocks.
  public func runEnded(hits: Int, misses: Int, stored: Int) {
    store.runEnded(hits: hits, misses: misses, stored: stored)
  }

  /// Stops answering: a restore still under way gives up, removing what it wrote, and is
  /// waited for; a store still under way is dropped when it ends.
  public func close() {
    delivery.close()
    work.stopAndWait()
  }
}

/// What the cache's threads hand back to the loop.
enum CacheAnswer: Sendable {
  case lookedUp(Result<CacheEntry?, CacheProblem>)
  case restored(Result<Int, CacheProblem>)
  case stored(Result<Int, CacheProblem>)
}

/// What a job printed while it ran, kept for its cache entry up to ``CacheEntry/printedLimit``
/// bytes: whole pieces as they came; lines beyond the limit are counted.
struct PrintedOutput: Sendable {
  var pieces: [CacheEntry.Printed] = []
  var bytes = 0
  var linesLeftOut = 0

  mutating func append(_ text: [UInt8], stream: OutputStream) {
    guard bytes + text.count <= CacheEntry.printedLimit else {
      linesLeftOut += max(text.count { $0 == UInt8(ascii: "\n") }, 1)
      return
    }
    bytes += text.count
    pieces.append(CacheEntry.Printed(stream: stream, text: text))
  }
}
