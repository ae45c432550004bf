import OprunCore

extension RunDriver {
  /// Starts every command of `launch` on the backend and tells the engine. A command that
  /// cannot start fails the attempt, the reason in the job's output and in its `finished`
  /// transition (no exit status is made up for it); it never stops the run. A job none of
  /// whose commands started finishes without executing. When the backend ran short of
  /// something the run's own commands give back as they end (descriptors, processes), the
  /// launch keeps its slot and waits for one of them to end, then tries again.
  func start(_ launch: Launch) {
    if scheduler != nil, launch.attempt == 1 {
      awaitLaunch(launch)
      return
    }
    let job = graph.jobs[launch.job]
    let work = WorkKey(job: launch.job, purpose: .attempt(launch.attempt))
    let order = WorkOrder(
      work: work, commands: job.commands, environment: environment(of: job, attempt: launch.attempt),
      workingDirectory: job.cwd ?? graph.manifestFolder, qos: job.qos, interactive: job.interactive,
      timeout: job.timeout)
    let results = backend.start(order)
    if isRunningAnything, results.allSatisfy(\.mayPassLater) {
      launchesWaitingForResources.append(launch)
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
      endingAttempt = (launch.job, attempt.termination)
      engine.didNotStart(launch.job)
      endingAttempt = nil
      return
    }
    attempts[launch.job] = attempt
    if let timeout = job.timeout {
      scheduleTimeout(of: launch.job, attempt: launch.attempt, after: timeout)
    }
    engine.didStart(launch.job)
    report(failures, of: launch.job)
  }

  /// Each command that could not start, in the job's output.
  private func report(_ failures: [StartFailure], of job: JobID) {
    for failure in failures {
      publish(.output(job: job, stream: .stderr, text: Array("oprun: \(failure)\n".utf8)))
    }
  }

  /// Some command or completion of the run is still running, and will give back what it holds.
  private var isRunningAnything: Bool { !attempts.isEmpty || !completions.isEmpty }

  /// The launches that waited for resources, tried again now that something has ended (a
  /// launch cancelled meanwhile finishes without starting).
  func retryLaunchesWaitingForResources() {
    let waiting = launchesWaitingForResources
    launchesWaitingForResources = []
    for launch in waiting {
      if engine.isCancelled(launch.job) {
        engine.didNotStart(launch.job)
      } else {
        start(launch)
      }
    }
  }

  /// Sets the executing attempt's time limit to fall due `seconds` from now.
  func scheduleTimeout(of job: JobID, attempt number: Int, after seconds: Double) {
    attempts[job]?.timeoutDeadline = clock.now() + seconds
    attempts[job]?.timeoutTimer = clock.schedule(after: seconds) { [unowned self] in
      apply(.timeout(job, attempt: number))
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
    case .exited(let work, _, let termination):
      mayRetryWaitingLaunches = !launchesWaitingForResources.isEmpty
      switch work.purpose {
      case .attempt(let number):
        commandExited(work.job, attempt: number, termination)
      case .completion:
        completions[work.job] = nil
        publish(.completion(job: work.job, termination: termination))
      }
    }
  }

  /// The first command that does not succeed decides how the attempt ended.
  private func commandExited(_ job: JobID, attempt number: Int, _ termination: Termination) {
    guard let index = attempts.index(forKey: job), attempts.values[index].attempt == number else { return }
    attempts.values[index].remaining -= 1
    if attempts.values[index].termination.isSuccess && !termination.isSuccess {
      attempts.values[index].termination = termination
    }
    if attempts.values[index].remaining == 0 { endAttempt(of: job) }
  }

  /// Every command of the attempt has exited: the engine decides the outcome (and a retry).
  private func endAttempt(of job: JobID) {
    guard let attempt = attempts.removeValue(forKey: job) else { return }
    if let timer = attempt.timeoutTimer { clock.cancelTimer(timer) }
    if awaitsOutputs(of: job, attempt: attempt.attempt, termination: attempt.termination) { return }
    endingAttempt = (job, attempt.termination)
    engine.didFinish(job, succeeded: attempt.termination.isSuccess)
    endingAttempt = nil
  }

  /// The job's `env`, then the `OPRUN_*` variables, then `extra`, to set on top of the
  /// backend's environment.
  func environment(of job: JobNode, attempt: Int, extra: [EnvironmentEntry] = []) -> [EnvironmentEntry] {
    job.env + [
      EnvironmentEntry("OPRUN_JOB", job.name), EnvironmentEntry("OPRUN_QUEUE", graph.queues[job.queue].name),
      EnvironmentEntry("OPRUN_ATTEMPT", String(attempt)),
    ] + extra
  }
}
