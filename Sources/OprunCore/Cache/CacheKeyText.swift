/// What a job's cache key (SPEC §14) is the SHA-256 of, laid out byte for byte: a format
/// version, the platform, the job's fingerprint, its inputs' digest (the path and content
/// hash of every file they match, as §10 hashed them), each dependency's result and the
/// values of the variables its `cache-env` names. Each part is length-prefixed, so no two
/// different keys can run together into the same bytes.
public struct CacheKeyText: Sendable, Equatable {
  /// Raised whenever what a key stands for, or the entry it names, changes meaning.
  public static let formatVersion = "oprun cache key 1"

  public private(set) var bytes: [UInt8] = []

  /// `platform` is the operating system and architecture (`Linux x86_64`); `environment`
  /// is each name `cache-env` lists with its value now (nil when unset, which differs from empty).
  public init(
    platform: String, fingerprint: String, inputs: String, dependencyResults: [String],
    environment: [(name: String, value: String?)]
  ) {
    append(Self.formatVersion)
    append(platform)
    append(fingerprint)
    append(inputs)
    appendCount(dependencyResults.count)
    for result in dependencyResults { append(result) }
    appendCount(environment.count)
    for (name, value) in environment {
      append(name)
      if let value {
        bytes.append(1)
        append(value)
      } else {
        bytes.append(0)
      }
    }
  }

  private mutating func append(_ text: String) {
    appendCount(text.utf8.count)
    bytes.append(contentsOf: text.utf8)
  }

  private mutating func appendCount(_ count: Int) {
    withUnsafeBytes(of: UInt64(count).littleEndian) { bytes.append(contentsOf: $0) }
  }
}
