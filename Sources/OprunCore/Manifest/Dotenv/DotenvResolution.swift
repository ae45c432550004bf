/// Fills a decoded manifest's `dotenvEntries` from its `dotenv` files and its jobs'.
///
/// The runtime reads the files; this decides what they mean: each file is read once, however
/// many lists name it; a missing file is skipped unless required; every malformed line of
/// every file is reported at its place, with the manifest's own problems.
public struct DotenvResolution {
  /// Reads the file at a path (relative to the current directory, or absolute).
  public typealias Reader = (String) -> DotenvFileContents

  private let read: Reader
  private let folder: String
  private var parsed: [String: [EnvironmentEntry]] = [:]
  /// The files read, in the order first named, for the excerpts under their problems.
  private(set) var sources: [SourceText] = []

  init(manifestPath: String, read: @escaping Reader) {
    self.read = read
    self.folder = PathParts.folder(of: manifestPath)
  }

  /// The path `file` is read at: relative to the manifest's folder unless absolute.
  public static func path(of file: DotenvFile, manifestPath: String) -> String {
    GraphBuilder.join(PathParts.folder(of: manifestPath), file.path)
  }

  /// Sets `dotenvEntries` of the manifest and of each job that lists files.
  mutating func resolve(_ manifest: inout Manifest, reportingTo diagnostics: inout DiagnosticCollector) {
    guard !manifest.dotenv.isEmpty || manifest.jobs.contains(where: { !$0.dotenv.isEmpty }) else { return }
    manifest.dotenvEntries = entries(of: manifest.dotenv, reportingTo: &diagnostics)
    for index in manifest.jobs.indices where !manifest.jobs[index].dotenv.isEmpty {
      manifest.jobs[index].dotenvEntries = entries(of: manifest.jobs[index].dotenv, reportingTo: &diagnostics)
    }
  }

  /// What `files` set, read in order, a later file's value replacing an earlier one's.
  private mutating func entries(
    of files: [DotenvFile], reportingTo diagnostics: inout DiagnosticCollector
  ) -> [EnvironmentEntry] {
    var merged: [EnvironmentEntry] = []
    for file in files {
      merged = GraphBuilder.environment(merged, overriddenBy: entries(of: file, reportingTo: &diagnostics))
    }
    return merged
  }

  private mutating func entries(of file: DotenvFile, reportingTo diagnostics: inout DiagnosticCollector)
    -> [EnvironmentEntry]
  {
    let path = GraphBuilder.join(folder, file.path)
    if let known = parsed[path] { return known }
    var entries: [EnvironmentEntry] = []
    switch read(path) {
    case .missing:
      if file.required {
        diagnostics.append(
          Diagnostic(
            at: file.location,
            "required dotenv file '\(path)' does not exist; create it, or drop the '!' to make it optional"))
      }
    case .unreadable(let reason):
      diagnostics.append(Diagnostic(at: file.location, "cannot read dotenv file '\(path)': \(reason)"))
    case .text(let source):
      let (read, problems) = DotenvReader.read(source)
      diagnostics += problems
      entries = read
      sources.append(source)
    }
    parsed[path] = entries
    return entries
  }
}
