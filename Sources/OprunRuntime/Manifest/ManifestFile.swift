import Glibc
import OprunCore

/// A manifest on disk. Reading it is the runtime's part: OprunCore only ever sees the text.
public enum ManifestFile {
  /// Files larger than this are refused rather than read into memory.
  static let maximumSize = 256 << 20

  /// The validated graph of the manifest at `path`, or every problem found, in reading order,
  /// with the text read so that the problems can be shown with their lines.
  public static func graph(path: String, defaultMaxConcurrent: Int) -> Result<JobGraph, ManifestFileErrors> {
    switch read(path: path) {
    case .failure(let problem):
      return .failure(ManifestFileErrors(diagnostics: [problem], sources: []))
    case .success(let source):
      return ManifestLoader.graph(from: source, defaultMaxConcurrent: defaultMaxConcurrent).mapError {
        ManifestFileErrors(diagnostics: $0.diagnostics, sources: [source])
      }
    }
  }

  /// Reads the whole file at `path`, or says in a diagnostic why it cannot.
  static func read(path: String) -> Result<SourceText, Diagnostic> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return .failure(cannotRead(path, errno)) }
    defer { close(descriptor) }

    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return .failure(cannotRead(path, errno)) }
    if status.st_mode & S_IFMT == S_IFDIR {
      return .failure(Diagnostic(at: nil, "cannot read '\(path)': it is a directory"))
    }
    if Int(status.st_size) > maximumSize {
      return .failure(tooLarge(path))
    }
    return readAll(descriptor, path: path, sizeHint: Int(status.st_size))
  }

  /// Reads until end of file: a pipe or a file that grows is read to its end, not to its `stat` size.
  private static func readAll(_ descriptor: Int32, path: String, sizeHint: Int) -> Result<SourceText, Diagnostic> {
    var chunks: [[UInt8]] = []
    var capacity = max(sizeHint + 1, 4096)
    var total = 0
    while true {
      var failure: Int32 = 0
      let chunk = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
        count = 0
        while count < capacity {
          let received = Glibc.read(descriptor, buffer.baseAddress! + count, capacity - count)
          if received < 0, errno == EINTR { continue }
          if received < 0 { failure = errno }
          guard received > 0 else { return }
          count += received
        }
      }
      if failure != 0 { return .failure(cannotRead(path, failure)) }
      total += chunk.count
      if total > maximumSize { return .failure(tooLarge(path)) }
      let isLast = chunk.count < capacity
      chunks.append(chunk)
      if isLast { break }
      capacity *= 2
    }
    let bytes = chunks.count == 1 ? chunks[0] : Array(chunks.joined())
    return .success(SourceText(path: path, bytes: bytes))
  }

  private static func cannotRead(_ path: String, _ error: Int32) -> Diagnostic {
    Diagnostic(at: nil, "cannot read '\(path)': \(String(cString: strerror(error)))")
  }

  private static func tooLarge(_ path: String) -> Diagnostic {
    Diagnostic(at: nil, "cannot read '\(path)': larger than \(maximumSize >> 20) MiB")
  }
}

/// Why a manifest file gave no graph: every problem, and the text read (none when the file
/// itself could not be read), which the excerpts under the problems come from.
public struct ManifestFileErrors: Error, Sendable {
  public var diagnostics: [Diagnostic]
  public var sources: [SourceText]
}
