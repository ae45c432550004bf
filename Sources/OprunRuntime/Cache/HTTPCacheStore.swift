import COprunHTTP
import Glibc
import Synchronization

/// A cache on a server speaking the HTTP cache protocol of Bazel's remote cache (SPEC §14):
/// `GET`/`PUT {url}/ac/{key}` for entries, `GET`/`PUT`/`HEAD {url}/cas/{sha256}` for blobs.
/// 404 is "none"; any other answer than 2xx, no connection, or a server that is late is a
/// ``CacheProblem`` naming the URL and the cause. `Authorization: Bearer $OPRUN_CACHE_TOKEN`
/// goes with every request when the variable is set; the token is in no message.
///
/// Requests go through libcurl, loaded on first use (a run without this cache never loads
/// it); where oprun is a static executable, in a helper process per handle (`oprun-http`).
/// Each call checks out a handle of its own, and gives it back after, so the cache's threads
/// each keep a connection open to the server from one request to the next.
public final class HTTPCacheStore: CacheStore {
  public let url: String
  /// `Bearer TOKEN`, or nil: never printed.
  private let authorization: String?
  /// Idle handles, as addresses: each is used by one thread at a time.
  private let idleHandles = Mutex<[UInt]>([])

  /// No connection within this is a problem.
  static let connectMilliseconds = 5_000
  /// A request during which no byte moves for this long is late: a large blob may take
  /// longer than this as a whole, as long as it keeps moving.
  static let stallMilliseconds = 5_000
  /// A request without a blob's body (an entry, a `HEAD`) taking longer than this is late.
  static let smallRequestMilliseconds = 5_000
  /// Entries are small; a larger answer is no entry of oprun's.
  static let entryLimit = 64 << 20

  /// A store at `url` (without a trailing `/`), sending `token` as a bearer token when given.
  public init(url: String, token: String? = nil) {
    self.url = url
    authorization = token.flatMap { $0.isEmpty ? nil : "Bearer " + $0 }
  }

  /// The variable whose value is sent as the bearer token.
  public static let tokenVariable = "OPRUN_CACHE_TOKEN"

  /// A store at `url`, with the token of `OPRUN_CACHE_TOKEN` when that is set.
  public static func fromEnvironment(url: String) -> HTTPCacheStore {
    HTTPCacheStore(url: url, token: getenv(tokenVariable).map { String(cString: $0) })
  }

  deinit {
    for handle in idleHandles.withLock({ $0 }) {
      oprun_http_handle_free(OpaquePointer(bitPattern: handle))
    }
  }

  public var name: String { url }

  func entryURL(_ key: String) -> String { url + "/ac/" + key }
  func blobURL(_ digest: String) -> String { url + "/cas/" + digest }

  public func entry(key: String) throws(CacheProblem) -> [UInt8]? {
    let address = entryURL(key)
    var bytes: [UInt8] = []
    var tooLarge = false
    let tooLargeProblem = CacheProblem(
      "GET \(address): larger than \(Self.entryLimit >> 20) MB, no entry of oprun's")
    let found: Bool
    do throws(CacheProblem) {
      found = try request(.get, address, body: nil, total: Self.smallRequestMilliseconds) { piece in
        guard bytes.count + piece.count <= Self.entryLimit else {
          tooLarge = true
          return false
        }
        bytes.append(contentsOf: piece)
        return true
      }
    } catch {
      // The transfer stopped because the entry was too large, not for the reason it gives.
      throw tooLarge ? tooLargeProblem : error
    }
    if tooLarge { throw tooLargeProblem }
    return found ? bytes : nil
  }

  public func blob(_ digest: String, into writer: BlobWriter) throws(CacheProblem) -> Bool {
    let address = blobURL(digest)
    let found = try request(.get, address, body: nil, total: 0) { writer.write($0) }
    if let failure = writer.failure {
      throw CacheProblem("cannot write a restored file: \(errorMessage(failure))")
    }
    return found
  }

  public func hasBlob(_ digest: String) throws(CacheProblem) -> Bool {
    try request(.head, blobURL(digest), body: nil, total: Self.smallRequestMilliseconds, receive: nil)
  }

  public func putBlob(_ digest: String, from path: String, buffer: UnsafeMutableRawBufferPointer) throws(CacheProblem) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw CacheProblem("cannot read \(path): \(errorMessage(errno))") }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw CacheProblem("cannot read \(path): \(errorMessage(errno))") }
    posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
    let body = FileBody(descriptor: descriptor, path: path, size: Int(status.st_size), digest: digest)
    do throws(CacheProblem) {
      _ = try request(.put, blobURL(digest), body: body, total: 0, receive: nil)
    } catch {
      // What went wrong with the file, not the abort it caused, is the news.
      throw body.failure ?? error
    }
  }

  public func putEntry(key: String, _ bytes: [UInt8]) throws(CacheProblem) {
    _ = try request(.put, entryURL(key), body: BytesBody(bytes), total: Self.smallRequestMilliseconds, receive: nil)
  }

  // MARK: Requests

  /// Performs one request: true for a 2xx answer, false for 404 (a `GET` or `HEAD` of what is
  /// not there); any other answer or failure is a problem naming `address`.
  private func request(
    _ method: HTTPMethod, _ address: String, body: RequestBody?, total: Int,
    receive: ((UnsafeRawBufferPointer) -> Bool)?
  ) throws(CacheProblem) -> Bool {
    guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
      throw CacheProblem("\(url): a cache server is spoken to over http:// or https://, not this scheme")
    }
    let handle = try checkOut()
    defer { checkIn(handle) }
    let receiver = receive.map(Receiver.init)
    var result = oprun_http_result()
    let performed = withExtendedLifetime((receiver, body)) {
      oprun_http_perform(
        handle, method.c, address, authorization,
        receiver == nil
          ? nil
          : { context, bytes, count in
            let receiver = Unmanaged<Receiver>.fromOpaque(context!).takeUnretainedValue()
            return receiver.receive(UnsafeRawBufferPointer(start: bytes, count: count)) ? 1 : 0
          },
        receiver.map { Unmanaged.passUnretained($0).toOpaque() },
        body == nil
          ? nil
          : { context, buffer, capacity in
            let body = Unmanaged<AnyObject>.fromOpaque(context!).takeUnretainedValue() as! RequestBody
            return body.fill(UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
          },
        body.map { Unmanaged.passUnretained($0 as AnyObject).toOpaque() },
        Int64(body?.size ?? 0), Self.connectMilliseconds, Self.stallMilliseconds, total, &result)
    }
    let cause =
      performed == 0
      ? nil : withUnsafeBytes(of: result.message) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
    switch HTTPAnswer(status: Int(result.status), failure: cause) {
    case .found: return true
    case .none where method != .put: return false
    case .none, .refused: throw CacheProblem("\(method.rawValue) \(address): HTTP \(result.status)")
    case .failed(let cause): throw CacheProblem("\(method.rawValue) \(address): \(cause)")
    }
  }

  private func checkOut() throws(CacheProblem) -> OpaquePointer {
    if let idle = idleHandles.withLock({ $0.popLast() }) { return OpaquePointer(bitPattern: idle)! }
    if let failure = oprun_http_load() { throw CacheProblem(String(cString: failure)) }
    var failure = [UInt8](repeating: 0, count: 512)
    let made = failure.withUnsafeMutableBytes { bytes in
      oprun_http_handle_new(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count)
    }
    guard let handle = made else {
      throw CacheProblem("\(url): \(String(decoding: failure.prefix { $0 != 0 }, as: UTF8.self))")
    }
    return handle
  }

  private func checkIn(_ handle: OpaquePointer) {
    idleHandles.withLock { $0.append(UInt(bitPattern: handle)) }
  }
}

/// What an HTTP cache's answer means (SPEC §14): 2xx found, 404 none, anything else, or no
/// answer, a problem.
enum HTTPAnswer: Equatable {
  case found
  case none
  /// Another status: the server would not.
  case refused
  /// No answer: the transfer failed, for this reason.
  case failed(String)

  init(status: Int, failure: String?) {
    if let failure {
      self = .failed(failure)
    } else if (200...299).contains(status) {
      self = .found
    } else if status == 404 {
      self = .none
    } else {
      self = .refused
    }
  }
}

enum HTTPMethod: String {
  case get = "GET"
  case head = "HEAD"
  case put = "PUT"

  var c: oprun_http_method {
    switch self {
    case .get: oprun_http_get
    case .head: oprun_http_head
    case .put: oprun_http_put
    }
  }
}

/// Takes a response's body, piece by piece; false stops the transfer.
private final class Receiver {
  let receive: (UnsafeRawBufferPointer) -> Bool
  init(_ receive: @escaping (UnsafeRawBufferPointer) -> Bool) { self.receive = receive }
}

/// A request's body, given piece by piece.
private protocol RequestBody: AnyObject {
  var size: Int { get }
  /// Fills `buffer` with what comes next: how many bytes, 0 at the end, -1 to abort.
  func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int
}

private final class BytesBody: RequestBody {
  let bytes: [UInt8]
  private var sent = 0
  init(_ bytes: [UInt8]) { self.bytes = bytes }
  var size: Int { bytes.count }

  func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
    let count = min(buffer.count, bytes.count - sent)
    bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[sent..<sent + count])) }
    sent += count
    return count
  }
}

/// A file sent as the blob `digest`, hashed as it goes: when its bytes do not hash to the
/// digest (it changed since it was hashed), the upload is aborted before its last byte, so
/// the server keeps nothing.
private final class FileBody: RequestBody {
  let descriptor: Int32
  let path: String
  let size: Int
  let digest: String
  private var sent = 0
  private var hash = SHA256()
  private(set) var failure: CacheProblem?

  init(descriptor: Int32, path: String, size: Int, digest: String) {
    self.descriptor = descriptor
    self.path = path
    self.size = size
    self.digest = digest
  }

  func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
    let wanted = min(buffer.count, size - sent)
    guard wanted > 0 else { return 0 }
    var count: Int
    repeat { count = read(descriptor, buffer.baseAddress, wanted) } while count < 0 && errno == EINTR
    guard count > 0 else {
      failure =
        count < 0
        ? CacheProblem("cannot read \(path): \(errorMessage(errno))")
        : CacheProblem("\(path) changed while it was stored")
      return -1
    }
    hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    sent += count
    if sent == size, ContentDigest.hex(hash.finalize()) != digest {
      failure = CacheProblem("\(path) changed while it was stored")
      return -1
    }
    return count
  }
}
