/// What a job's success recorded of its files (SPEC §10), carried forward by each run that
/// finds it up to date.
public struct RecordedFiles: Sendable, Equatable {
  /// The digest of the listing of every file its inputs matched when it started.
  public var inputs: String
  /// Each output, as it was when the job finished: listed in the record, or kept apart.
  public var outputs: RecordedOutputs
  /// What its dependents record of it: see ``JobResult``.
  public var result: String
  /// Each dependency's result as this job saw it, by the dependency's name.
  public var dependencies: [String: String]
  /// An input that was not as hashed at the start when the job succeeded: what its outputs
  /// were built from is unknown, so the record says nothing is up to date (SPEC §10).
  public var inputChangedWhileRunning: String?

  public init(
    inputs: String, outputs: RecordedOutputs, result: String, dependencies: [String: String],
    inputChangedWhileRunning: String? = nil
  ) {
    self.inputs = inputs
    self.outputs = outputs
    self.result = result
    self.dependencies = dependencies
    self.inputChangedWhileRunning = inputChangedWhileRunning
  }

  /// The members of a journal's `job` line that hold it; nil when the line has none.
  init?(line: JSONValue) {
    guard let inputs = line["inputs"]?.stringValue, let result = line["result"]?.stringValue else { return nil }
    let outputs: RecordedOutputs
    if let digest = line["outputs_listing"]?.stringValue {
      outputs = .kept(digest: digest)
    } else {
      var listed: [FileRecord] = []
      for item in line["outputs"]?.arrayValue ?? [] {
        guard let path = item["path"]?.stringValue, let kind = item["kind"]?.stringValue.flatMap(FileKind.init) else {
          return nil
        }
        listed.append(FileRecord(path: path, kind: kind, digest: item["sha256"]?.stringValue ?? ""))
      }
      outputs = .listed(listed)
    }
    var dependencies: [String: String] = [:]
    for (name, value) in line["dependency_results"]?.objectValue ?? [] {
      if let text = value.stringValue { dependencies[name] = text }
    }
    self.init(
      inputs: inputs, outputs: outputs, result: result, dependencies: dependencies,
      inputChangedWhileRunning: line["input_changed_while_running"]?.stringValue)
  }
}

/// A record's outputs (SPEC §10): few are listed in the journal's line itself; more than
/// ``listedLimit`` are kept in a listing of their own, in `.oprun/outputs/`, which the line
/// names by its digest, so that a job that writes 400,000 files still has a line of a few
/// hundred bytes, read in bounded memory. The digest is that of the outputs' snapshot: when
/// the outputs now have it, they are the recorded ones, and the listing is not read.
public enum RecordedOutputs: Sendable, Equatable {
  /// Each output, in the record (`outputs` in the line; every record before listings were kept).
  case listed([FileRecord])
  /// The digest of the outputs' listing, kept under it (`outputs_listing` in the line).
  case kept(digest: String)

  /// More outputs than this are kept in a listing of their own: a line lists at most this many.
  public static let listedLimit = 100

  /// How a record holds the outputs `snapshot` found.
  public init(_ snapshot: FileSnapshot) {
    self = snapshot.files.count > Self.listedLimit ? .kept(digest: snapshot.digest) : .listed(snapshot.files)
  }

  /// The digest under which the outputs' listing is kept; nil for outputs listed in the record.
  public var keptDigest: String? {
    if case .kept(let digest) = self { return digest }
    return nil
  }
}

/// What a finished job means to the jobs that depend on it (SPEC §10).
public enum JobResult: Equatable, Sendable {
  /// It did not change: its outputs' digest, or, without outputs, its fingerprint.
  case unchanged(String)
  /// It ran in this run and declares no outputs: its dependents run, and record `recorded`.
  case ran(recorded: String)
  /// Under `--dry-run`: it would run. `hasOutputs`: whether its dependents then run depends on what it writes.
  case willRun(hasOutputs: Bool)

  /// What a dependent records of it.
  public var recorded: String {
    switch self {
    case .unchanged(let value), .ran(let value): value
    case .willRun: ""
    }
  }
}

/// What a finished job that declares inputs or outputs leaves for its journal record.
public struct FinishedFiles: Sendable, Equatable {
  public var recorded: RecordedFiles
  /// The listing behind `recorded.inputs`, kept so that a later run can say which input changed.
  public var inputs: FileListing
  /// The listing of the outputs, kept under their digest when the record does not list them.
  public var outputs: FileListing

  public init(recorded: RecordedFiles, inputs: FileListing, outputs: FileListing) {
    self.recorded = recorded
    self.inputs = inputs
    self.outputs = outputs
  }
}
