import OprunCore

/// What the driver needs to let files decide whether a job runs (SPEC §10).
public struct FileTracking {
  public var checker: any FileChecking
  /// Each job's newest record that stands, by name (``JournalRecord/started``).
  public var records: [String: JournalRecord]
  /// The listing of inputs recorded under a digest, while it is kept.
  public var recordedInputs: (String) -> FileListing?
  /// `--force`: every job runs, and its files are recorded.
  public var force: Bool

  public init(
    checker: any FileChecking, records: [String: JournalRecord], recordedInputs: @escaping (String) -> FileListing?,
    force: Bool
  ) {
    self.checker = checker
    self.records = records
    self.recordedInputs = recordedInputs
    self.force = force
  }
}

/// A job's files, as the checker hands them back.
enum FilesSeen {
  /// Before it runs: what its inputs and its outputs match.
  case inputs(FileSnapshot)
  case outputs(FileSnapshot)
  /// After its commands of `attempt` succeeded: what its outputs match now.
  case outputsAfterAttempt(FileSnapshot, attempt: Int)
}

/// Where the driver is with one job's files.
struct FileCheckInProgress {
  var inputs: FileSnapshot?
  var outputs: FileSnapshot?
  /// Once both are in: what decided whether it runs, kept to record its files if it succeeds.
  var check: UpToDateCheck?
  /// Its commands succeeded; their termination, while the outputs are looked at.
  var endedAttempt: (number: Int, termination: Termination)?
}

extension RunDriver {
  /// Asks for the job's inputs and outputs as they are now; the answers come back as steps.
  func checkFiles(of job: JobID) {
    guard let tracking = fileTracking else { return }
    fileChecks[job] = FileCheckInProgress()
    let node = graph.jobs[job]
    tracking.checker.snapshot(.inputs(of: node, in: graph)) { [unowned self] snapshot in
      take(.files(job, .inputs(snapshot)))
    }
    tracking.checker.snapshot(.outputs(of: node, in: graph)) { [unowned self] snapshot in
      take(.files(job, .outputs(snapshot)))
    }
  }

  func receive(_ seen: FilesSeen, of job: JobID) {
    guard fileChecks[job] != nil else { return }
    switch seen {
    case .inputs(let snapshot): fileChecks[job]?.inputs = snapshot
    case .outputs(let snapshot): fileChecks[job]?.outputs = snapshot
    case .outputsAfterAttempt(let snapshot, let attempt):
      return outputsSeen(snapshot, of: job, attempt: attempt)
    }
    guard let progress = fileChecks[job], progress.check == nil, let inputs = progress.inputs,
      let outputs = progress.outputs, let tracking = fileTracking
    else { return }
    let name = graph.jobs[job].name
    let record = tracking.records[name]
    let check = UpToDateCheck(
      job: job, record: record, fingerprint: fingerprints[job], inputs: inputs, outputs: outputs,
      recordedInputs: UpToDateCheck.recordedInputs(of: record, now: inputs, read: tracking.recordedInputs),
      dependencyResults: graph.jobs[job].dependencies.map { results[$0] ?? .ran(recorded: "") })
    fileChecks[job]?.check = check
    let decision = tracking.force ? RunDecision.runs(.forced) : check.decision(in: graph)
    if decision == .upToDate {
      results[job] = check.resultWhenUpToDate(in: graph)
      // Up to date: its outputs are the recorded ones, file for file, so this carries them forward.
      finishedFiles[job] = FinishedFiles(recorded: check.recordedFiles(outputs: outputs, in: graph), inputs: inputs.listing)
    }
    engine.checked(job, decision: decision)
  }

  /// Every command of a job's attempt succeeded: a job that declares outputs finishes once
  /// they are looked at. Whether it did is for the caller to hand the engine; true when the
  /// attempt waits for its outputs.
  func awaitsOutputs(of job: JobID, attempt: Int, termination: Termination) -> Bool {
    guard termination.isSuccess, let tracking = fileTracking, fileChecks[job]?.check != nil,
      !engine.isCancelled(job)
    else { return false }
    fileChecks[job]?.endedAttempt = (attempt, termination)
    tracking.checker.snapshot(.outputs(of: graph.jobs[job], in: graph)) { [unowned self] snapshot in
      take(.files(job, .outputsAfterAttempt(snapshot, attempt: attempt)))
    }
    return true
  }

  private func outputsSeen(_ snapshot: FileSnapshot, of job: JobID, attempt: Int) {
    guard let progress = fileChecks[job], let ended = progress.endedAttempt, ended.number == attempt,
      let check = progress.check
    else { return }
    fileChecks[job]?.endedAttempt = nil
    let node = graph.jobs[job]
    let missing = snapshot.unmatchedPatterns.map { node.outputs[$0].body }
    if missing.isEmpty {
      let recorded = check.recordedFiles(outputs: snapshot, in: graph)
      // Outputs that cannot all be read may have changed unseen: its dependents run, as
      // after a job that declares none.
      let unseen = node.outputs.isEmpty || snapshot.firstUnreadable != nil
      results[job] = unseen ? .ran(recorded: recorded.result) : .unchanged(recorded.result)
      finishedFiles[job] = FinishedFiles(recorded: recorded, inputs: check.inputs.listing)
    } else {
      missingOutputs[job] = missing
    }
    endingAttempt = (job, ended.termination)
    engine.didFinish(job, succeeded: missing.isEmpty)
    endingAttempt = nil
  }

  /// What a job that finished means to its dependents, unless its files already said.
  func noteResult(of transition: Transition) {
    let job = transition.job
    if transition.outcome != .succeeded {
      results[job] = .ran(recorded: "")
    } else if results[job] == nil {
      let fingerprint = fingerprints[job].text
      results[job] = transition.resumed ? .unchanged(fingerprint) : .ran(recorded: fingerprint)
    }
    fileChecks[job] = nil
  }
}
