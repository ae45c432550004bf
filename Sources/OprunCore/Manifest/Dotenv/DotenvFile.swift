/// One entry of a `dotenv` list (SPEC §15): a file of `NAME=value` lines, relative to the
/// manifest's folder unless absolute. A missing file is skipped, unless it is `required`
/// (written with a trailing `!`, as in `.env!`).
public struct DotenvFile: Hashable, Sendable {
  /// The path as written, without the `!`.
  public var path: String
  public var required: Bool
  /// Where the entry is written in the manifest.
  public var location: SourceLocation

  public init(path: String, required: Bool, location: SourceLocation) {
    self.path = path
    self.required = required
    self.location = location
  }
}

/// What reading one dotenv file found, as the runtime tells it to ``DotenvResolution``.
public enum DotenvFileContents: Sendable {
  case text(SourceText)
  /// No file at that path (ENOENT or ENOTDIR).
  case missing
  /// The file is there but cannot be read; the reason, for the diagnostic.
  case unreadable(String)
}
