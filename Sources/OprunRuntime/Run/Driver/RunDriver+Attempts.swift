import OprunCore

/// Attempts on the backend: starting a launch's commands, hearing them exit, time limits.
/// Their state is the ``AttemptTable`` part's.
extension RunDriver {
  /// Starts every command of `launch` on the backend and tells the engine. A command that
  /// cannot start fails the attempt, the reason in the job's output and in its `finished`
  /// transition (no exit status is made up for it); it never stops the run. A job none of
  /// whose commands started finishes without executing. When the backend ran short of
  /// something the run's own commands give back as they end (descriptors, processes), the
  /// launch keeps its slot and waits for one of them to end, then tries again. On a backend
  /// that took the whole run, the launch is awaited instead, a retry submitted first.
  func start(_ launch: Launch) {
    if cluster != nil {
      awaitLaunch(launch)
      if launch.attempt > 1 { submitRetry(launch) }
      return
    }
    let job = graph.jobs[launch.job]
    let results = backend.start(workOrder(job, attempt: launch.attempt, needs: launch.needs))
    if attempts.isRunningAnything, results.allSatisfy(\.mayPassLater) {
      attempts.wait(launch)
      return
    }
    var attempt = RunningAttempt(attempt: launch.attempt)
    var failures: [StartFailure] = []
    for result in results {
      switch result {
      case .success(let handle):
        attempt.handles.append(handle)
        attempt.remaining += 1
      case .failure(let failure):
        if failures.isEmpty { attempt.termination = .notStarted(failure.description) }
        failures.append(failure)
      }
    }
    if attempt.handles.isEmpty {
      report(failures, of: launch.job)
      endWithoutStarting(launch.job, attempt.termination)
      return
    }
    attempts.began(attempt, of: launch.job)
    if let timeout = job.timeout {
      scheduleTimeout(of: launch.job, attempt: launch.attempt, after: timeout)
    }
    engine.didStart(launch.job)
    report(failures, of: launch.job)
  }

  /// What the backend is asked to run for attempt `attempt` of `job`, given `needs` of the
  /// budget (empty: what the job declares).
  func workOrder(_ job: JobNode, attempt: Int, needs: ResourceNeeds = ResourceNeeds()) -> WorkOrder {
    let needs = needs.declaresAny ? needs : job.needs
    return WorkOrder(
      work: WorkKey(job: job.id, purpose: .attempt(attempt)), commands: job.commands,
      environment: environment(of: job, attempt: attempt, needs: needs),
      workingDirectory: job.cwd ?? manifestFolder,
      qos: job.qos, interactive: job.interactive, timeout: job.timeout, needs: needs)
  }

  /// Each command that could not start, in the job's output.
  private func report(_ failures: [StartFailure], of job: JobID) {
    for failure in failures {
      publish(.output(job: job, stream: .stderr, text: Array("oprun: \(failure)\n".utf8)))
    }
  }

  /// The launches that waited for resources, tried again now that something has ended (a
  /// launch cancelled meanwhile finishes without starting). False when there was none to try.
  func retryLaunchesWaitingForResources() -> Bool {
    let waiting = attempts.launchesToRetry()
    for launch in waiting {
      if engine.isCancelled(launch.job) {
        engine.didNotStart(launch.job)
      } else {
        start(launch)
      }
    }
    return !waiting.isEmpty
  }

  /// Sets the executing attempt's time limit to fall due `seconds` from now.
  func scheduleTimeout(of job: JobID, attempt number: Int, after seconds: Double) {
    let deadline = clock.now() + seconds
    let timer = clock.schedule(after: seconds) { [unowned self] in
      apply(.timeout(job, attempt: number))
    }
    attempts.update(job) { attempt in
      attempt.timeoutDeadline = deadline
      attempt.timeoutTimer = timer
    }
  }

  func receive(_ report: BackendReport) {
    if keptUntilLaunched(report) { return }
    switch report {
    case .began(let work, let handles):
      began(work, handles)
    case .endedUnstarted(let work, let reason):
      endedUnstarted(work, reason: reason)
    case .output(let work, let stream, let text):
      publish(.output(job: work.job, stream: stream, text: text))
      if caches != nil, case .attempt = work.purpose { caches!.record(text, stream: stream, of: work.job) }
    case .exited(let work, _, let termination, let used):
      attempts.noteSomethingEnded()
      switch work.purpose {
      case .attempt(let number):
        guard let ended = attempts.commandExited(work.job, attempt: number, termination, using: used) else { return }
        endAttempt(ended, of: work.job)
      case .completion:
        attempts.completionExited(work.job)
        publish(.completion(job: work.job, termination: termination))
      }
    }
  }

  /// Every command of the attempt has exited: the engine decides the outcome (and a retry),
  /// once the outputs are looked at when files decide.
  private func endAttempt(_ attempt: RunningAttempt, of job: JobID) {
    if let timer = attempt.timeoutTimer { clock.cancelTimer(timer) }
    resourceUse.attemptEnded(job, using: attempt.usage)
    if awaitsOutputs(of: job, attempt: attempt.attempt, termination: attempt.termination) { return }
    finishAttempt(
      of: job, attempt.termination, succeeded: attempt.termination.isSuccess,
      outOfMemoryLimit: attempt.termination.isSuccess ? nil : attempt.outOfMemoryLimit)
  }

  /// Tells the engine the job's attempt ended as `termination`; its transitions carry it.
  /// `outOfMemoryLimit`: it failed by passing this memory limit (bytes), so a retry gets
  /// twice the memory.
  func finishAttempt(of job: JobID, _ termination: Termination, succeeded: Bool, outOfMemoryLimit: Int? = nil) {
    endingAttempt = (job, termination, outOfMemoryLimit)
    engine.didFinish(job, succeeded: succeeded, outOfMemory: outOfMemoryLimit != nil)
    endingAttempt = nil
  }

  /// Tells the engine the job finishes without having executed, its transition carrying `termination`.
  func endWithoutStarting(_ job: JobID, _ termination: Termination) {
    endingAttempt = (job, termination, nil)
    engine.didNotStart(job)
    endingAttempt = nil
  }

  /// The job's `env`, then the `OPRUN_*` variables, then `extra`, to set on top of the
  /// backend's environment. `OPRUN_CPUS` is what the attempt was given of the budget (1
  /// when it declares none), and `OPRUN_MEMORY` its memory in bytes when it declares some
  /// (SPEC §12): what `make -j"$OPRUN_CPUS"` reads.
  func environment(
    of job: JobNode, attempt: Int, needs: ResourceNeeds? = nil, extra: [EnvironmentEntry] = []
  ) -> [EnvironmentEntry] {
    let needs = needs ?? job.needs
    var variables =
      job.env + [
        EnvironmentEntry("OPRUN_JOB", job.name), EnvironmentEntry("OPRUN_QUEUE", graph.queues[job.queue].name),
        EnvironmentEntry("OPRUN_ATTEMPT", String(attempt)), EnvironmentEntry("OPRUN_CPUS", String(needs.cpus ?? 1)),
      ]
    if let memory = needs.memory { variables.append(EnvironmentEntry("OPRUN_MEMORY", String(memory))) }
    return variables + extra
  }
}
