import Glibc
import OprunCore

/// A manifest on disk. Reading it is the runtime's part: OprunCore only ever sees the text.
public enum ManifestFile {
  /// Files larger than this are refused rather than read into memory.
  static let maximumSize = 256 << 20

  /// The validated graph of the manifest at `path`, with `variables` from the command line
  /// over its `vars`, or every problem found, in reading order, with the text of every file
  /// read (the manifest and those it includes) so that the problems can be shown with their lines.
  public static func graph(
    path: String, variables: [String: String] = [:], defaultMaxConcurrent: Int
  ) -> Result<JobGraph, ManifestFileErrors> {
    switch read(path: path) {
    case .failure(let problem):
      return .failure(ManifestFileErrors(errors: ManifestErrors([problem]), sources: []))
    case .success(let source):
      let sources = SourcesRead(source)
      let loaded = ManifestLoader.graph(
        from: source, variables: variables, defaultMaxConcurrent: defaultMaxConcurrent,
        including: { included in
          let text = read(path: included)
          if case .success(let source) = text { sources.texts.append(source) }
          return text
        },
        readingDotenv: { path in
          let contents = readDotenv(path: path)
          if case .text(let text) = contents { sources.texts.append(text) }
          return contents
        })
      return loaded.mapError { ManifestFileErrors(errors: $0, sources: sources.texts) }
    }
  }

  /// A dotenv file (SPEC §15) as ``DotenvResolution`` asks for it.
  static func readDotenv(path: String) -> DotenvFileContents {
    switch FileContents.read(path: path, limit: maximumSize) {
    case .success(let bytes): .text(SourceText(path: path, bytes: bytes))
    case .failure(.system(let error)) where error == ENOENT || error == ENOTDIR: .missing
    case .failure(.system(let error)): .unreadable(errorMessage(error))
    case .failure(.isDirectory): .unreadable("it is a directory")
    case .failure(.tooLarge): .unreadable("larger than \(maximumSize >> 20) MiB")
    case .failure(.notRegularFile): .unreadable("not a regular file")
    }
  }

  /// The files a manifest's loading read, which its problems' excerpts come from.
  private final class SourcesRead {
    var texts: [SourceText]

    init(_ first: SourceText) { texts = [first] }
  }

  /// Reads the whole file at `path`, or says in a diagnostic why it cannot.
  static func read(path: String) -> Result<SourceText, Diagnostic> {
    switch FileContents.read(path: path, limit: maximumSize) {
    case .success(let bytes): .success(SourceText(path: path, bytes: bytes))
    case .failure(.system(let error)): .failure(cannotRead(path, error))
    case .failure(.isDirectory): .failure(Diagnostic(at: nil, "cannot read '\(path)': it is a directory"))
    case .failure(.tooLarge): .failure(tooLarge(path))
    case .failure(.notRegularFile): .failure(Diagnostic(at: nil, "cannot read '\(path)': not a regular file"))
    }
  }

  private static func cannotRead(_ path: String, _ error: Int32) -> Diagnostic {
    Diagnostic(at: nil, "cannot read '\(path)': \(errorMessage(error))")
  }

  private static func tooLarge(_ path: String) -> Diagnostic {
    Diagnostic(at: nil, "cannot read '\(path)': larger than \(maximumSize >> 20) MiB")
  }
}

/// Why a manifest file gave no graph: every problem, and the text read (none when the file
/// itself could not be read), which the excerpts under the problems come from.
public struct ManifestFileErrors: Error, Sendable {
  public var errors: ManifestErrors
  public var sources: [SourceText]

  public var diagnostics: [Diagnostic] { errors.diagnostics }

  /// What `oprun check` and a run print: each problem with its line, then how many more.
  public var text: String { DiagnosticRenderer.render(errors, sources: sources) }
}

extension JobGraph {
  /// The manifest's warnings as `oprun: warning:` lines say them: `FILE:LINE:COLUMN: message`.
  public var manifestWarningLines: [String] {
    manifestWarnings.map { warning in warning.location.map { "\($0): \(warning.message)" } ?? warning.message }
  }
}
