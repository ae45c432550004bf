import OprunCore

/// The files a job's patterns may match: where to look, and what to leave out.
public struct FileSetRequest: Sendable, Equatable {
  /// Absolute: where the job runs; relative patterns are relative to it.
  public var folder: String
  /// Absolute: recorded paths are relative to it when under it.
  public var manifestFolder: String
  public var patterns: [PathPattern]
  /// A file one of these matches is left out (a job's own outputs are not its inputs).
  public var excluded: [PathPattern]

  public init(folder: String, manifestFolder: String, patterns: [PathPattern], excluded: [PathPattern] = []) {
    self.folder = folder
    self.manifestFolder = manifestFolder
    self.patterns = patterns
    self.excluded = excluded
  }
}

extension FileSetRequest {
  /// What `job` reads: its inputs, less what its own outputs match.
  static func inputs(of job: JobNode, in graph: JobGraph) -> FileSetRequest {
    FileSetRequest(
      folder: AbsolutePath.of(job.cwd ?? graph.manifestFolder), manifestFolder: AbsolutePath.of(graph.manifestFolder),
      patterns: job.inputs, excluded: job.outputs)
  }

  /// What `job` writes.
  static func outputs(of job: JobNode, in graph: JobGraph) -> FileSetRequest {
    FileSetRequest(
      folder: AbsolutePath.of(job.cwd ?? graph.manifestFolder), manifestFolder: AbsolutePath.of(graph.manifestFolder),
      patterns: job.outputs)
  }
}

/// Looks at files for the run driver (SPEC §10): it walks and hashes away from the driver's
/// thread, so that signals, output, other jobs and control requests go on meanwhile, and
/// hands each snapshot back on that thread, later — never from inside the call.
public protocol FileChecking: AnyObject {
  func snapshot(_ request: FileSetRequest, then deliver: @escaping (FileSnapshot) -> Void)
}
