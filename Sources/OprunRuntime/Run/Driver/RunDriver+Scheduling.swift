import OprunCore

/// The driver on a backend handed the whole run up front (its ``ClusterWaiting`` part): the
/// run is submitted before it begins, and the engine follows what the backend observes.
///
/// A job the backend ended without running is ``QueueEngine/didNotStart(_:)``: cancelled when
/// its flag is raised, else failed. A job the engine finishes without running (skipped,
/// cancelled while it waited) is withdrawn, and so is an awaited job whose flag is raised.
extension RunDriver {
  /// Every job that will run in this run, each after its dependencies (manifest order among
  /// those free to go), as a backend that takes the whole run is to receive them; the jobs
  /// `--resume` resumes are left out.
  public func plannedJobs() -> [PlannedJob] {
    let resumed = Set(graph.jobs.indices.filter { engine.resumePlan?.decisions[$0] == .resumed })
    return graph.topologicalOrder().filter { !resumed.contains($0) }.map { id in
      let job = graph.jobs[id]
      return PlannedJob(
        order: workOrder(job, attempt: 1), job: job, band: engine.effectivePriority(of: id),
        dependencies: job.dependencies.filter { !resumed.contains($0) })
    }
  }

  /// Hands the whole run to a backend that takes it up front, before the run begins; nil
  /// when it accepted it or takes jobs one at a time. A refusal leaves nothing queued.
  public func handOverToBackend() -> SubmissionFailure? {
    guard let cluster else { return nil }
    if case .failure(let failure) = cluster.scheduler.submit(plannedJobs()) { return failure }
    return nil
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

  /// The backend takes back the job's current attempt.
  func withdraw(_ job: JobID) {
    cluster?.scheduler.withdraw(WorkKey(job: job, purpose: .attempt(engine.attempt(of: job))))
  }
}
