import OprunCore

/// What a run needs to let files decide whether a job runs (SPEC §10): the checker that
/// looks at them, and what the plan found recorded.
public struct FileTracking {
  public var checker: any FileChecking
  /// Each job's newest record that stands, by name (``JournalRecord/started``).
  public var records: [String: JournalRecord]
  /// The listing of inputs recorded under a digest, while it is kept.
  public var recordedInputs: (String) -> FileListing?
  /// The listing of outputs recorded under a digest, while it is kept.
  public var recordedOutputs: (String) -> FileListing?
  /// `--force`: every job runs, and its files are recorded.
  public var force: Bool
  /// The locks between runs in this folder, when its `.oprun/` may be used: a job with
  /// outputs is decided, run and recorded holding its own. Nil: no lock is taken.
  public var locks: JobLocks?
  /// The newest record that stands of the job named, read again: another run may have
  /// written one since `records` were read.
  public var newestRecord: (String) -> RecordReading

  public init(
    checker: any FileChecking, records: [String: JournalRecord], recordedInputs: @escaping (String) -> FileListing?,
    recordedOutputs: @escaping (String) -> FileListing? = { _ in nil }, force: Bool, locks: JobLocks? = nil,
    newestRecord: @escaping (String) -> RecordReading = { _ in .read(nil) }
  ) {
    self.checker = checker
    self.records = records
    self.recordedInputs = recordedInputs
    self.recordedOutputs = recordedOutputs
    self.force = force
    self.locks = locks
    self.newestRecord = newestRecord
  }
}

/// What reading a job's newest record again came to.
public enum RecordReading: Equatable {
  /// Read: the record, or nil when none stands.
  case read(JournalRecord?)
  /// A journal that may hold it cannot be opened now (no descriptor left): ask again later.
  case notNow
}

/// A job's files, as the checker hands them back.
enum FilesSeen {
  /// Before it runs: what its inputs and its outputs match.
  case inputs(FileSnapshot)
  case outputs(FileSnapshot)
  /// After its commands of `attempt` succeeded: what its inputs and its outputs match now.
  case inputsAfterAttempt(FileSnapshot, attempt: Int)
  case outputsAfterAttempt(FileSnapshot, attempt: Int)
  /// After its outputs were restored from the cache: what its outputs match now.
  case outputsAfterRestore(FileSnapshot)
}

/// The driver's part that follows each job's files, from the look before it runs to what its
/// `finished` transition carries and what it means to its dependents.
///
/// Invariants: `checks[job]` is set from the moment the job's files are asked for until it
/// finishes; once both snapshots are in, its `check` is set and the engine has been given
/// the decision. `results[job]` is set once the job finished (or was found up to date), and
/// never changes after: it is what its dependents compare. All per-job state is indexed by
/// job and updated in place.
struct FileTracker {
  /// What the run was given; a job's record is replaced when another run may have written a newer one.
  private(set) var tracking: FileTracking
  /// Every job's fingerprint (SPEC §9), from the plan.
  let fingerprints: [JobFingerprint]
  private var checks: [FileCheckInProgress?]
  /// What each finished job means to its dependents, by job.
  private var results: [JobResult?]
  /// What the `finished` transition of a job about to finish carries of its files.
  private var finishedFiles: [FinishedFiles?]
  /// The outputs a job's attempt left missing, for its next transition.
  private var missingOutputs: [[String]]

  init(tracking: FileTracking, fingerprints: [JobFingerprint]) {
    self.tracking = tracking
    self.fingerprints = fingerprints
    let count = fingerprints.count
    checks = Array(repeating: nil, count: count)
    results = Array(repeating: nil, count: count)
    finishedFiles = Array(repeating: nil, count: count)
    missingOutputs = Array(repeating: [], count: count)
  }

  /// Where one job is with its files.
  struct FileCheckInProgress {
    var inputs: FileSnapshot?
    var outputs: FileSnapshot?
    /// Once both are in: what decided whether it runs, kept to record its files if it succeeds.
    var check: UpToDateCheck?
    /// Its commands succeeded; their termination, while its files are looked at again.
    var endedAttempt: (number: Int, termination: Termination)?
    /// What its inputs and its outputs matched once its commands succeeded.
    var inputsAfter: FileSnapshot?
    var outputsAfter: FileSnapshot?
  }

  /// Another run held the job's lock since its record was read: its newest record now.
  /// False when it cannot be read now: the record is kept, and must not decide the job yet.
  mutating func readRecordAgain(of job: JobID, in graph: JobGraph) -> Bool {
    let name = graph.jobs[job].name
    guard case .read(let record) = tracking.newestRecord(name) else { return false }
    tracking.records[name] = record
    return true
  }

  /// The job's files are being asked for.
  mutating func beginCheck(of job: JobID) {
    checks[job] = FileCheckInProgress()
  }

  /// A snapshot taken before the job runs. Once both are in, the decision for the engine.
  mutating func received(_ snapshot: FilesSeen, of job: JobID, in graph: JobGraph) -> RunDecision? {
    guard checks[job] != nil else { return nil }
    switch snapshot {
    case .inputs(let inputs): checks[job]!.inputs = inputs
    case .outputs(let outputs): checks[job]!.outputs = outputs
    case .inputsAfterAttempt, .outputsAfterAttempt, .outputsAfterRestore: return nil
    }
    guard let progress = checks[job], progress.check == nil, let inputs = progress.inputs,
      let outputs = progress.outputs
    else { return nil }
    let record = tracking.records[graph.jobs[job].name]
    let check = UpToDateCheck(
      job: job, record: record, fingerprint: fingerprints[job], inputs: inputs, outputs: outputs,
      recordedInputs: UpToDateCheck.recordedInputs(of: record, now: inputs, read: tracking.recordedInputs),
      recordedOutputs: UpToDateCheck.recordedOutputs(of: record, now: outputs, read: tracking.recordedOutputs),
      dependencyResults: graph.jobs[job].dependencies.map { results[$0] ?? .ran(recorded: "") })
    checks[job]!.check = check
    let decision = tracking.force ? RunDecision.runs(.forced) : check.decision(in: graph)
    if decision == .upToDate {
      results[job] = check.resultWhenUpToDate(in: graph)
      // Up to date: its outputs are the recorded ones, file for file, so this carries them forward.
      finishedFiles[job] = FinishedFiles(
        recorded: check.recordedFiles(outputs: outputs, in: graph), inputs: inputs.listing, outputs: outputs.listing)
    }
    return decision
  }

  /// What the job's cache key holds of what its check saw (SPEC §14): its fingerprint, its
  /// inputs' digest and each dependency's result, as the check compared them (nothing is
  /// hashed again); and the paths its outputs matched, which a restore replaces.
  func cacheKeyParts(of job: JobID) -> (fingerprint: String, inputs: String, dependencies: [String], outputs: [String])?
  {
    guard let check = checks[job]?.check else { return nil }
    return (
      check.fingerprint.text, check.inputs.digest, check.dependencyResults.map(\.recorded),
      check.outputs.files.map(\.path)
    )
  }

  /// The job's outputs were restored from the cache and are now `outputs`: what its finished
  /// transition records and its dependents see, as after a run that wrote them.
  mutating func restored(_ outputs: FileSnapshot, of job: JobID, in graph: JobGraph) {
    guard let check = checks[job]?.check else { return }
    let recorded = check.recordedFiles(outputs: outputs, in: graph)
    results[job] = outputs.firstUnreadable != nil ? .ran(recorded: recorded.result) : .unchanged(recorded.result)
    finishedFiles[job] = FinishedFiles(recorded: recorded, inputs: check.inputs.listing, outputs: outputs.listing)
  }

  /// Every command of attempt `number` succeeded: a job whose files were checked finishes
  /// only once its outputs are looked at. True when it waits for them.
  mutating func awaitsOutputs(of job: JobID, attempt number: Int, termination: Termination) -> Bool {
    guard termination.isSuccess, checks[job]?.check != nil else { return false }
    checks[job]!.endedAttempt = (number, termination)
    checks[job]!.inputsAfter = nil
    checks[job]!.outputsAfter = nil
    return true
  }

  /// A snapshot taken after attempt `number` succeeded. Once the inputs and the outputs are
  /// both in: how the attempt ended, and whether it succeeded (a declared output missing
  /// fails it); nil until then, or when the snapshot is not of the attempt awaited.
  ///
  /// Inputs that are not what was hashed at the start mean the outputs may have been built
  /// from something else (an edit undone while the job ran): the record says so, and the
  /// job is not up to date next time.
  mutating func afterAttempt(
    _ seen: FilesSeen, of job: JobID, in graph: JobGraph
  ) -> (termination: Termination, succeeded: Bool)? {
    guard let progress = checks[job], let ended = progress.endedAttempt, let check = progress.check else { return nil }
    switch seen {
    case .inputsAfterAttempt(let snapshot, let number) where number == ended.number:
      checks[job]!.inputsAfter = snapshot
    case .outputsAfterAttempt(let snapshot, let number) where number == ended.number:
      checks[job]!.outputsAfter = snapshot
    default:
      return nil
    }
    guard let inputsAfter = checks[job]!.inputsAfter, let snapshot = checks[job]!.outputsAfter else { return nil }
    checks[job]!.endedAttempt = nil
    let node = graph.jobs[job]
    let missing = snapshot.unmatchedPatterns.map { node.outputs[$0].body }
    if missing.isEmpty {
      var recorded = check.recordedFiles(outputs: snapshot, in: graph)
      if inputsAfter.digest != check.inputs.digest {
        recorded.inputChangedWhileRunning =
          FileDifference.between(old: check.inputs.listing, new: inputsAfter.listing)?.path ?? "?"
      }
      // Outputs that cannot all be read may have changed unseen: its dependents run, as
      // after a job that declares none.
      let unseen = node.outputs.isEmpty || snapshot.firstUnreadable != nil
      results[job] = unseen ? .ran(recorded: recorded.result) : .unchanged(recorded.result)
      finishedFiles[job] = FinishedFiles(recorded: recorded, inputs: check.inputs.listing, outputs: snapshot.listing)
    } else {
      missingOutputs[job] = missing
    }
    return (ended.termination, missing.isEmpty)
  }

  /// Adds what the files say to one of the job's transitions: a finished one carries its
  /// files (when it succeeded) and its missing outputs, a retry's the outputs it missed.
  /// A finished job's result is settled here, unless its files already said.
  mutating func annotate(_ transition: inout Transition) {
    let job = transition.job
    if transition.to == .finished {
      if transition.outcome == .succeeded { transition.files = finishedFiles[job] }
      transition.missingOutputs = missingOutputs[job]
      finishedFiles[job] = nil
      missingOutputs[job] = []
      settleResult(of: transition)
    } else if transition.from == .executing, transition.to == .ready {
      transition.missingOutputs = missingOutputs[job]
      missingOutputs[job] = []
    }
  }

  private mutating func settleResult(of transition: Transition) {
    let job = transition.job
    if transition.outcome != .succeeded {
      results[job] = .ran(recorded: "")
    } else if results[job] == nil {
      let fingerprint = fingerprints[job].text
      results[job] = transition.resumed ? .unchanged(fingerprint) : .ran(recorded: fingerprint)
    }
    checks[job] = nil
  }

  /// The job's result once it finished (tests).
  func result(of job: JobID) -> JobResult? { results[job] }
}
