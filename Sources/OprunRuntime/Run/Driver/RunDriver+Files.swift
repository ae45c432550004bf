import OprunCore

/// Files deciding whether a job runs (SPEC §10): the driver asks the checker, hands the
/// answers to its ``FileTracker`` part as steps, and tells the engine what it decided.
extension RunDriver {
  /// Asks for the job's inputs and outputs as they are now, once it holds its lock between
  /// runs (when it needs one); the answers come back as steps.
  func checkFiles(of job: JobID) {
    guard let checker = files?.tracking.checker, takeLockBeforeCheck(of: job) else { return }
    files!.beginCheck(of: job)
    let node = graph.jobs[job]
    checker.snapshot(.inputs(of: node, in: graph)) { [unowned self] snapshot in
      take(.files(job, .inputs(snapshot)))
    }
    checker.snapshot(.outputs(of: node, in: graph)) { [unowned self] snapshot in
      take(.files(job, .outputs(snapshot)))
    }
  }

  func receive(_ seen: FilesSeen, of job: JobID) {
    switch seen {
    case .inputsAfterAttempt, .outputsAfterAttempt:
      guard let ended = files?.afterAttempt(seen, of: job, in: graph) else { return }
      finishAttempt(of: job, ended.termination, succeeded: ended.succeeded)
      return
    case .outputsAfterRestore(let outputs):
      files?.restored(outputs, of: job, in: graph)
      engine.checked(job, decision: .restored)
      return
    case .inputs, .outputs:
      break
    }
    guard let decision = files?.received(seen, of: job, in: graph) else { return }
    if decision != .upToDate { warnOfLockFile(of: job, failure: locks?.markRunning(job)) }
    if lookUpInCache(job, decision: decision) { return }
    engine.checked(job, decision: decision)
  }

  /// Every command of a job's attempt succeeded: a job whose files were checked finishes
  /// once its outputs, and its inputs again, are looked at (an unchanged file costs a
  /// `stat`, through the hash cache). True when the attempt waits for them.
  func awaitsOutputs(of job: JobID, attempt: Int, termination: Termination) -> Bool {
    guard !engine.isCancelled(job), let checker = files?.tracking.checker,
      files!.awaitsOutputs(of: job, attempt: attempt, termination: termination)
    else { return false }
    checker.snapshot(.inputs(of: graph.jobs[job], in: graph)) { [unowned self] snapshot in
      take(.files(job, .inputsAfterAttempt(snapshot, attempt: attempt)))
    }
    checker.snapshot(.outputs(of: graph.jobs[job], in: graph)) { [unowned self] snapshot in
      take(.files(job, .outputsAfterAttempt(snapshot, attempt: attempt)))
    }
    return true
  }
}
