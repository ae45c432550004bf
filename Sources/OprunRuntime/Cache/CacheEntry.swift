import OprunCore

/// What the cache keeps under a job's key (SPEC §14): each output file by its path, mode,
/// size and SHA-256 (the blob that holds its bytes), what the job printed, and how long it
/// took. Encoded as one JSON object, oprun's own format, versioned (man page: CACHE ENTRY):
///
///     {"format":"oprun-cache-entry","version":1,"duration":12.3,
///      "files":[{"path":"build/app","mode":493,"size":81234,"sha256":"…"}],
///      "printed":[{"stream":"stdout","text":"compiled\n"}],"printed_left_out":0}
///
/// Invariant of a decoded entry: every path is relative, its components neither empty nor
/// `.` nor `..`; every digest is 64 lower-case hex digits; every mode at most 0o7777.
public struct CacheEntry: Sendable, Equatable {
  public static let format = "oprun-cache-entry"
  public static let version = 1
  /// What is kept of a job's output: beyond this many bytes, lines are counted, not kept.
  public static let printedLimit = 256 << 10

  public struct File: Sendable, Equatable {
    /// Relative to the manifest's folder, as records keep paths (SPEC §10).
    public var path: String
    public var mode: UInt32
    public var size: Int
    public var sha256: String

    public init(path: String, mode: UInt32, size: Int, sha256: String) {
      self.path = path
      self.mode = mode
      self.size = size
      self.sha256 = sha256
    }
  }

  public struct Printed: Sendable, Equatable {
    public var stream: OutputStream
    public var text: [UInt8]

    public init(stream: OutputStream, text: [UInt8]) {
      self.stream = stream
      self.text = text
    }
  }

  public var files: [File]
  public var printed: [Printed]
  /// Lines the job printed beyond ``printedLimit``, not kept.
  public var printedLeftOut: Int
  /// Seconds the job took when it ran: what restoring it saves.
  public var duration: Double

  public init(files: [File], printed: [Printed] = [], printedLeftOut: Int = 0, duration: Double) {
    self.files = files
    self.printed = printed
    self.printedLeftOut = printedLeftOut
    self.duration = duration
  }

  /// The bytes of every file: what a restore writes, what a store sends.
  public var bytes: Int { files.reduce(0) { $0 + $1.size } }

  /// The entry as stored.
  public func encoded() -> [UInt8] {
    var object = JSONObjectWriter()
    object.field("format", Self.format)
    object.field("version", Self.version)
    object.field("duration", duration)
    object.field("files", objects: files) { file, item in
      item.field("path", file.path)
      item.field("mode", Int(file.mode))
      item.field("size", file.size)
      item.field("sha256", file.sha256)
    }
    object.field("printed", objects: printed) { printed, item in
      item.field("stream", printed.stream.rawValue)
      item.field("text", String(decoding: printed.text, as: UTF8.self))
    }
    object.field("printed_left_out", printedLeftOut)
    object.close(newline: true)
    return object.bytes
  }

  /// The entry `bytes` hold, or why they hold none oprun may use.
  public static func decode(_ bytes: some Collection<UInt8>) -> Result<CacheEntry, CacheEntryError> {
    let value: JSONValue
    switch JSONValue.parse(bytes, limits: JSONLimits(maximumLength: 64 << 20, maximumDepth: 8)) {
    case .success(let parsed): value = parsed
    case .failure(let error): return .failure(CacheEntryError("not JSON: \(error)"))
    }
    guard value["format"]?.stringValue == format else { return .failure(CacheEntryError("not an oprun cache entry")) }
    guard value["version"]?.intValue == version else {
      return .failure(CacheEntryError("version \(value["version"]?.intValue ?? 0), this oprun reads \(version)"))
    }
    guard let duration = value["duration"]?.doubleValue, duration >= 0, duration.isFinite,
      let fileValues = value["files"]?.arrayValue
    else { return .failure(CacheEntryError("no duration or files")) }
    var files: [File] = []
    for item in fileValues {
      guard let path = item["path"]?.stringValue, let mode = item["mode"]?.intValue, (0...0o7777).contains(mode),
        let size = item["size"]?.intValue, size >= 0, let digest = item["sha256"]?.stringValue
      else { return .failure(CacheEntryError("a file without path, mode, size or sha256")) }
      guard isPlainRelativePath(path) else {
        return .failure(CacheEntryError("path '\(path)' is not a plain path under the manifest's folder"))
      }
      guard isDigest(digest) else { return .failure(CacheEntryError("'\(digest)' is no SHA-256")) }
      files.append(File(path: path, mode: UInt32(mode), size: size, sha256: digest))
    }
    var printed: [Printed] = []
    for item in value["printed"]?.arrayValue ?? [] {
      guard let text = item["text"]?.stringValue,
        let stream = item["stream"]?.stringValue.flatMap(OutputStream.init(rawValue:))
      else { return .failure(CacheEntryError("printed output without a stream (stdout or stderr) or text")) }
      printed.append(Printed(stream: stream, text: Array(text.utf8)))
    }
    let leftOut = value["printed_left_out"]?.intValue ?? 0
    guard leftOut >= 0 else { return .failure(CacheEntryError("a negative count of lines left out")) }
    return .success(CacheEntry(files: files, printed: printed, printedLeftOut: leftOut, duration: duration))
  }

  /// A path that stays below the folder it is taken from, read as text alone: not absolute,
  /// and no component empty, `.` or `..` (a link on the way is the restore's to refuse).
  public static func isPlainRelativePath(_ path: String) -> Bool {
    guard !path.isEmpty, !path.hasPrefix("/"), !path.utf8.contains(0) else { return false }
    return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { component in
      !component.isEmpty && component != "." && component != ".."
    }
  }

  static func isDigest(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}

/// Why stored bytes are no entry oprun may restore.
public struct CacheEntryError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}
