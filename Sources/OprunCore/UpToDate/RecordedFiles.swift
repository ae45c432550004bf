/// What a job's success recorded of its files (SPEC §10), carried forward by each run that
/// finds it up to date.
public struct RecordedFiles: Sendable, Equatable {
  /// The digest of the listing of every file its inputs matched when it started.
  public var inputs: String
  /// Each output, as it was when the job finished.
  public var outputs: [FileRecord]
  /// What its dependents record of it: see ``JobResult``.
  public var result: String
  /// Each dependency's result as this job saw it, by the dependency's name.
  public var dependencies: [String: String]
  /// An input that was not as hashed at the start when the job succeeded: what its outputs
  /// were built from is unknown, so the record says nothing is up to date (SPEC §10).
  public var inputChangedWhileRunning: String?

  public init(
    inputs: String, outputs: [FileRecord], result: String, dependencies: [String: String],
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
    var outputs: [FileRecord] = []
    for item in line["outputs"]?.arrayValue ?? [] {
      guard let path = item["path"]?.stringValue, let kind = item["kind"]?.stringValue.flatMap(FileKind.init) else {
        return nil
      }
      outputs.append(FileRecord(path: path, kind: kind, digest: item["sha256"]?.stringValue ?? ""))
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

  public init(recorded: RecordedFiles, inputs: FileListing) {
    self.recorded = recorded
    self.inputs = inputs
  }
}
