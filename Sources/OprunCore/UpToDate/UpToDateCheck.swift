/// Whether a job that declares inputs or outputs runs (SPEC §10), from what is known when it
/// becomes ready: its newest record, its fingerprint, its files as they are now, and what its
/// dependencies turned out to be in this run.
public struct UpToDateCheck: Sendable {
  public var job: JobID
  /// Its newest record that stands (``JournalRecord/started``); nil when it has none.
  public var record: JournalRecord?
  public var fingerprint: JobFingerprint
  public var inputs: FileSnapshot
  public var outputs: FileSnapshot
  /// The listing behind the record's inputs digest, while it is kept; nil when it is gone.
  public var recordedInputs: FileListing?
  /// The listing behind the record's outputs digest (outputs kept apart, ``RecordedOutputs``),
  /// when the outputs now differ from it and it is still kept; nil otherwise.
  public var recordedOutputs: FileListing?
  /// Each dependency's result in this run, in the order the job lists them.
  public var dependencyResults: [JobResult]
  /// Under `--dry-run`: the files that dependencies which would run may write again (their
  /// outputs, as recorded and as they are now). An input among them that changed says
  /// nothing yet: the dependency may write back what was recorded.
  public var filesDependenciesMayRewrite: Set<String> = []

  public init(
    job: JobID, record: JournalRecord?, fingerprint: JobFingerprint, inputs: FileSnapshot, outputs: FileSnapshot,
    recordedInputs: FileListing?, recordedOutputs: FileListing? = nil, dependencyResults: [JobResult]
  ) {
    self.job = job
    self.record = record
    self.fingerprint = fingerprint
    self.inputs = inputs
    self.outputs = outputs
    self.recordedInputs = recordedInputs
    self.recordedOutputs = recordedOutputs
    self.dependencyResults = dependencyResults
  }

  /// The listing to check against: the one `record`'s inputs digest names, got from `read`,
  /// when the inputs `now` differ from it. It only says which input changed, so it is not
  /// read when none did.
  public static func recordedInputs(
    of record: JournalRecord?, now inputs: FileSnapshot, read: (String) -> FileListing?
  ) -> FileListing? {
    guard let files = record?.files, files.inputs != inputs.digest else { return nil }
    return read(files.inputs)
  }

  /// The same for the outputs: the listing `record`'s outputs digest names, got from `read`,
  /// when the record keeps its outputs apart and the outputs `now` differ from them. Outputs
  /// with the recorded digest are the recorded ones: their listing is not read.
  public static func recordedOutputs(
    of record: JournalRecord?, now outputs: FileSnapshot, read: (String) -> FileListing?
  ) -> FileListing? {
    guard let digest = record?.files?.outputs.keptDigest, digest != outputs.digest else { return nil }
    return read(digest)
  }

  /// Up to date, or the first reason it runs, in the order SPEC §10 lists them: its record,
  /// its command and settings, its inputs, its dependencies, its outputs.
  public func decision(in graph: JobGraph) -> RunDecision {
    guard let record, record.started else { return .runs(.noRecord) }
    guard record.outcome == .succeeded else { return .runs(.lastOutcome(record.outcome)) }
    guard let files = record.files else { return .runs(.noRecord) }
    if record.fingerprint != fingerprint.value {
      return .runs(.changed(FingerprintPart.allCases.filter { part in
        record.parts[part].map { $0 != fingerprint.parts[part] } ?? false
      }))
    }
    if let path = files.inputChangedWhileRunning { return .runs(.inputChangedWhileRunning(path)) }
    // Inputs that changed which a dependency that would run may write back as they were.
    var rewritable: FileDifference?
    if files.inputs != inputs.digest {
      guard let recordedInputs, let difference = FileDifference.between(old: recordedInputs, new: inputs.listing) else {
        return .runs(.inputsChanged)
      }
      if filesDependenciesMayRewrite.isEmpty { return .runs(.inputChanged(difference)) }
      let mayRewrite = filesDependenciesMayRewrite
      if let certain = FileDifference.between(old: recordedInputs, new: inputs.listing, ignoring: mayRewrite.contains) {
        return .runs(.inputChanged(certain))
      }
      rewritable = difference
    }
    // A file that cannot be read may have changed in any way: it is never up to date.
    if let unreadable = inputs.firstUnreadable {
      return .runs(.unreadableFile(unreadable.path, isInput: true))
    }
    let node = graph.jobs[job]
    var mayChange: JobID?
    for (dependency, result) in zip(node.dependencies, dependencyResults) {
      switch result {
      case .ran:
        return .runs(.dependencyRan(dependency))
      case .willRun(let hasOutputs):
        guard hasOutputs else { return .runs(.dependencyRuns(dependency, origin: dependency)) }
        if mayChange == nil { mayChange = dependency }
      case .unchanged(let value):
        if files.dependencies[graph.jobs[dependency].name] != value {
          return .runs(.dependencyResultChanged(dependency, hasOutputs: !graph.jobs[dependency].outputs.isEmpty))
        }
      }
    }
    if let unmatched = outputs.unmatchedPatterns.first {
      return .runs(.outputMissing(node.outputs[unmatched].body))
    }
    switch files.outputs {
    case .listed(let recorded):
      if let difference = FileDifference.between(old: FileListing(recorded), new: outputs.listing) {
        return .runs(.outputChanged(difference))
      }
    case .kept(let digest) where digest != outputs.digest:
      guard let recordedOutputs, let difference = FileDifference.between(old: recordedOutputs, new: outputs.listing)
      else { return .runs(.outputsChanged) }
      return .runs(.outputChanged(difference))
    case .kept:
      break
    }
    if let unreadable = outputs.firstUnreadable {
      return .runs(.unreadableFile(unreadable.path, isInput: false))
    }
    if let mayChange { return .runs(.dependencyMayChange(mayChange)) }
    return rewritable.map { .runs(.inputChanged($0)) } ?? .upToDate
  }

  /// What the job's dependents see of it once it finished without running (up to date):
  /// its outputs' digest, or its fingerprint when it declares none.
  public func resultWhenUpToDate(in graph: JobGraph) -> JobResult {
    .unchanged(graph.jobs[job].outputs.isEmpty ? filesFingerprint : outputs.digest)
  }

  /// §9's fingerprint with the inputs' digest and the dependencies' results: what a job
  /// without outputs stands for to its dependents.
  public var filesFingerprint: String {
    Self.filesFingerprint(fingerprint: fingerprint, inputs: inputs.digest, dependencies: dependencyResults)
  }

  public static func filesFingerprint(fingerprint: JobFingerprint, inputs: String, dependencies: [JobResult]) -> String
  {
    var text = FingerprintText()
    let value = text.hash { text in
      text.append("oprun files fingerprint 1")
      text.append(fingerprint.value)
      text.append(inputs)
      for result in dependencies { text.append(result.recorded) }
    }
    return JobFingerprint.text(of: value)
  }

  /// What a success records: the inputs as they were when it started, the outputs as it left
  /// them, its result, and what each dependency was.
  public func recordedFiles(outputs finalOutputs: FileSnapshot, in graph: JobGraph) -> RecordedFiles {
    let node = graph.jobs[job]
    var dependencies: [String: String] = [:]
    for (dependency, result) in zip(node.dependencies, dependencyResults) {
      dependencies[graph.jobs[dependency].name] = result.recorded
    }
    return RecordedFiles(
      inputs: inputs.digest, outputs: RecordedOutputs(finalOutputs),
      result: node.outputs.isEmpty ? filesFingerprint : finalOutputs.digest, dependencies: dependencies)
  }
}
