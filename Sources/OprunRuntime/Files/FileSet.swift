import OprunCore

/// What to snapshot: the files a job's `inputs` (or `outputs`) match, SPEC §10.
public struct FileSetRequest: Sendable {
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

/// What a recorded path is; anything but a regular file or a link is recorded, never opened.
public enum FileKind: String, Sendable {
  case file, link, fifo, device, socket
  /// It could not be read: recorded so that it counts as changed until it can be.
  case unreadable
}

/// One file a snapshot found.
public struct FileRecord: Sendable, Equatable {
  /// Relative to the manifest's folder when under it (no `./`), otherwise absolute.
  public var path: String
  public var kind: FileKind
  /// 64 lower-case hex digits of the SHA-256 of the content (of the target's text for a
  /// link); empty for a FIFO, a device, a socket or an unreadable file.
  public var digest: String

  public init(path: String, kind: FileKind, digest: String) {
    self.path = path
    self.kind = kind
    self.digest = digest
  }
}

/// The files a request matched, with their contents' hashes.
public struct FileSnapshot: Sendable, Equatable {
  /// Sorted by the bytes of their paths, each path once.
  public var files: [FileRecord]
  /// Indices in the request's `patterns` of the patterns (exclusions aside) that matched no
  /// file: for outputs, what is missing. An empty folder matches no file.
  public var unmatchedPatterns: [Int]
  /// SHA-256 (hex) over every record's path, kind and digest: equal digests, equal file sets.
  public var digest: String

  public init(files: [FileRecord], unmatchedPatterns: [Int]) {
    self.files = files
    self.unmatchedPatterns = unmatchedPatterns
    self.digest = Self.digest(of: files)
  }
}
