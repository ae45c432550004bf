import OprunCore

/// What to snapshot: the files a job's `inputs` (or `outputs`) match, SPEC §10.
public struct FileSetRequest: Hashable, Sendable {
  /// The absolute folder relative patterns start from: the job's working directory.
  public var folder: String
  /// The absolute folder of the manifest: recorded paths under it are relative to it, and
  /// its `.oprun/` is never matched.
  public var manifestFolder: String
  /// In order: an exclusion removes what the patterns before it matched.
  public var patterns: [PathPattern]
  /// A file one of these matches is left out whatever `patterns` say: the job's own outputs,
  /// when snapshotting its inputs.
  public var excluded: [PathPattern]

  public init(folder: String, manifestFolder: String, patterns: [PathPattern], excluded: [PathPattern] = []) {
    self.folder = folder
    self.manifestFolder = manifestFolder
    self.patterns = patterns
    self.excluded = excluded
  }
}
