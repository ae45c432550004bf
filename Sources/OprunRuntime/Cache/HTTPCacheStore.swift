/// A cache on a server speaking the HTTP cache protocol of Bazel's remote cache (SPEC §14).
public final class HTTPCacheStore: CacheStore {
  public let url: String

  public init(url: String) {
    self.url = url
  }

  public var name: String { url }

  public func entry(key: String) throws(CacheProblem) -> [UInt8]? { throw unsupported }
  public func blob(_ digest: String, into writer: BlobWriter) throws(CacheProblem) -> Bool { throw unsupported }
  public func hasBlob(_ digest: String) throws(CacheProblem) -> Bool { throw unsupported }
  public func putBlob(_ digest: String, from path: String, buffer: UnsafeMutableRawBufferPointer) throws(CacheProblem) {
    throw unsupported
  }
  public func putEntry(key: String, _ bytes: [UInt8]) throws(CacheProblem) { throw unsupported }

  private var unsupported: CacheProblem { CacheProblem("\(url): an HTTP cache is not supported yet") }
}
