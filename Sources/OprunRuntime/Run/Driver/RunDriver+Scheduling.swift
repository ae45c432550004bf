import OprunCore

/// The driver on a backend handed the whole run up front (its ``ClusterWaiting`` and
/// ``ClusterSubmissions`` parts): the run is submitted before it begins, and the engine follows
/// what the backend observes.
///
/// A job the backend ended without running is ``QueueEngine/didNotStart(_:)``: cancelled when
/// its flag is raised, else failed. A job the engine finishes without running (skipped,
/// cancelled while it waited) is withdrawn, and so is an awaited job whose flag is raised.
/// A retry is submitted when the engine launches it; the dependents of a job that may be
/// retried are submitted once its last attempt is known, so that they wait for that one.
extension RunDriver {
  /// Every job that will run in this run, each after its dependencies (manifest order among
  /// those free to go), as a backend that takes the whole run is to receive them; the jobs
  /// `--resume` resumes are left out.
  public func plannedJobs() -> [PlannedJob] {
    let instanceIndices = graph.instanceIndices()
    return graph.topologicalOrder().filter { !isResumed($0) }.map { id in
      var planned = plannedJob(id, attempt: 1, dependencies: graph.jobs[id].dependencies.filter { !isResumed($0) })
      planned.instanceIndex = instanceIndices[id]
      return planned
    }
  }

  /// Attempt `attempt` of `job` as the backend is to receive it, waiting for `dependencies`.
  private func plannedJob(_ id: JobID, attempt: Int, dependencies: [JobID]) -> PlannedJob {
    let job = graph.jobs[id]
    return PlannedJob(
      order: workOrder(job, attempt: attempt), job: job, band: engine.effectivePriority(of: id),
      dependencies: dependencies)
  }

  private func isResumed(_ job: JobID) -> Bool { engine.resumePlan?.decisions[job] == .resumed }

  /// Hands the run to a backend that takes it up front, before the run begins — every job but
  /// those that wait for the last attempt of a job that may be retried; nil when it accepted
  /// it or takes jobs one at a time. A refusal leaves nothing queued.
  public func handOverToBackend() -> SubmissionFailure? {
    guard let cluster, submissions != nil else { return nil }
    let upFront = submissions!.upFront(plannedJobs())
    if case .failure(let failure) = cluster.scheduler.submit(upFront) { return failure }
    for planned in upFront { submissions!.submitted(planned.job.id, attempt: 1) }
    return nil
  }

  /// Submits the retry `launch`, which waits for nothing (the job's dependencies have all
  /// ended); a refusal ends it without starting. Once the backend has the job's last attempt,
  /// what waited for it is submitted.
  func submitRetry(_ launch: Launch) {
    guard let cluster else { return }
    let work = WorkKey(job: launch.job, purpose: .attempt(launch.attempt))
    switch cluster.scheduler.submitLater(plannedJob(launch.job, attempt: launch.attempt, dependencies: [])) {
    case .failure(let failure):
      endedUnstarted(work, reason: failure.description)
    case .success:
      submissions?.submitted(launch.job, attempt: launch.attempt)
      submitWaitingDependents(of: launch.job)
    }
  }

  /// Submits each job that waited for `job`'s last attempt, and those that waited for theirs,
  /// once the last attempt of every one of its dependencies is known; one the engine has
  /// finished or cancelled meanwhile waits no more, unsubmitted. Those free to go at once are
  /// handed over together, in manifest order (the instances of a matrix job may go as one),
  /// then those that waited for them. A refused submission ends the job without starting when
  /// the engine launches it.
  func submitWaitingDependents(of job: JobID) {
    guard let cluster, submissions != nil else { return }
    let finished = { [engine] (job: JobID) in engine.state(of: job) == .finished }
    var known = [job]
    while !known.isEmpty {
      let free = Set(known.flatMap { graph.jobs[$0].dependents }).sorted().filter {
        submissions!.mayBeSubmitted($0, finished: finished)
      }
      var together: [PlannedJob] = []
      for dependent in free {
        if finished(dependent) || engine.isCancelled(dependent) {
          submissions!.stopWaiting(dependent)
          continue
        }
        let submitted = graph.jobs[dependent].dependencies.filter { submissions!.lastSubmittedAttempt(of: $0) > 0 }
        var planned = plannedJob(dependent, attempt: engine.attempt(of: dependent), dependencies: submitted)
        planned.held = engine.isSuspended(graph.jobs[dependent].queue)
        together.append(planned)
      }
      if together.contains(where: { $0.job.instance != nil }) {
        let instanceIndices = graph.instanceIndices()
        for index in together.indices { together[index].instanceIndex = instanceIndices[together[index].job.id] }
      }
      known = []
      for (planned, result) in zip(together, cluster.scheduler.submitLater(together)) {
        let dependent = planned.job.id
        switch result {
        case .failure(let failure):
          submissions!.stopWaiting(dependent)
          receive(.endedUnstarted(planned.order.work, reason: failure.description))
        case .success:
          submissions!.submitted(dependent, attempt: engine.attempt(of: dependent))
          if submissions!.lastAttemptIsKnown(of: dependent, finished: finished) { known.append(dependent) }
        }
      }
    }
  }

  /// The engine launched `launch` on a backend that took the whole run: it is awaited until
  /// the backend reports it began or ended; what the backend already reported about it is
  /// taken now.
  func awaitLaunch(_ launch: Launch) {
    guard let early = cluster?.launched(launch) else { return }
    for report in early { receive(report) }
  }

  /// Whether `report` is about a job the engine has not launched yet; if so, it is kept until
  /// the launch.
  func keptUntilLaunched(_ report: BackendReport) -> Bool {
    cluster?.keep(report) { job in attempts[job] == nil && engine.state(of: job) != .finished } ?? false
  }

  /// The backend saw the awaited job begin: it is executing, timed from now; a job cancelled
  /// while it was awaited is signalled at once.
  func began(_ work: WorkKey, _ handles: [CommandHandle]) {
    guard case .attempt(let number) = work.purpose, cluster?.settle(work.job, attempt: number) == true else { return }
    let job = work.job
    attempts.began(RunningAttempt(attempt: number, handles: handles, remaining: handles.count), of: job)
    if let timeout = graph.jobs[job].timeout { scheduleTimeout(of: job, attempt: number, after: timeout) }
    engine.didStart(job)
    if let reason = engine.cancelReason(of: job) { take(.signalCancelled(job, reason, attempt: number)) }
  }

  /// The backend ended the awaited job before it ran: it finishes without executing, with
  /// `reason` in its output unless the run cancelled it.
  func endedUnstarted(_ work: WorkKey, reason: String) {
    guard case .attempt(let number) = work.purpose, cluster?.settle(work.job, attempt: number) == true else { return }
    let job = work.job
    if !engine.isCancelled(job) {
      publish(.output(job: job, stream: .stderr, text: Array("oprun: \(reason)\n".utf8)))
    }
    endWithoutStarting(job, .notStarted(reason))
  }

  /// A suspended queue's jobs that have not begun are held on the backend (its cluster would
  /// start them otherwise); a resumed queue's are released.
  func holdOrRelease(_ queue: QueueID, _ state: QueueState) {
    guard let scheduler = cluster?.scheduler else { return }
    let works = graph.jobs.indices.filter { job in
      graph.jobs[job].queue == queue && attempts[job] == nil && engine.state(of: job) != .finished
    }.map { WorkKey(job: $0, purpose: .attempt(engine.attempt(of: $0))) }
    guard !works.isEmpty else { return }
    switch state {
    case .suspended: scheduler.hold(works)
    case .resumed: scheduler.release(works)
    }
  }

  /// A queue's new limit reaches the backend, for its jobs that have not finished.
  func limitOnBackend(_ queue: QueueID, _ maxConcurrent: Int) {
    guard let scheduler = cluster?.scheduler else { return }
    let works = graph.jobs.indices.filter { job in
      graph.jobs[job].queue == queue && engine.state(of: job) != .finished
    }.map { WorkKey(job: $0, purpose: .attempt(engine.attempt(of: $0))) }
    guard !works.isEmpty else { return }
    scheduler.limit(works, to: maxConcurrent)
  }

  /// The backend takes back the job's current attempt, if it was handed one.
  func withdraw(_ job: JobID) {
    guard let submissions, submissions.lastSubmittedAttempt(of: job) > 0 else { return }
    cluster?.scheduler.withdraw(WorkKey(job: job, purpose: .attempt(engine.attempt(of: job))))
  }
}
