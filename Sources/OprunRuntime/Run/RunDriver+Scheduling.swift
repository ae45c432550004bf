import OprunCore

/// The driver on a ``SchedulingBackend``: the whole run is submitted before it begins, and
/// the engine follows what the backend observes.
///
/// The engine still decides every transition: a job becomes ready when its dependencies
/// have finished (as observed), its launch marks it as awaited — it holds its slot, and
/// nothing is started — and the backend's ``BackendReport/began(_:_:)`` makes it executing,
/// its exits finish it as on any backend. A job the backend ended without running is
/// ``QueueEngine/didNotStart(_:)``: cancelled when its flag is raised, else failed. A job the
/// engine finishes without running (skipped, cancelled while it waited) is withdrawn, and so
/// is an awaited job whose flag is raised. Reports about a job the engine has not launched
/// yet (the backend saw it before the engine made it ready) wait until it is launched.
extension RunDriver {
  /// Every job that will run in this run, each after its dependencies (manifest order among
  /// those free to go), as a ``SchedulingBackend`` is to submit them; the jobs `--resume`
  /// resumes are left out.
  public func plannedJobs() -> [PlannedJob] {
    let resumed = Set(graph.jobs.indices.filter { engine.resumePlan?.decisions[$0] == .resumed })
    return graph.topologicalOrder().filter { !resumed.contains($0) }.map { id in
      let job = graph.jobs[id]
      let order = WorkOrder(
        work: WorkKey(job: id, purpose: .attempt(1)), commands: job.commands,
        environment: environment(of: job, attempt: 1), workingDirectory: job.cwd ?? graph.manifestFolder,
        qos: job.qos, interactive: job.interactive, timeout: job.timeout)
      return PlannedJob(
        order: order, job: job, band: engine.effectivePriority(of: id),
        dependencies: job.dependencies.filter { !resumed.contains($0) })
    }
  }

  /// The engine launched `launch` on a scheduling backend: it is awaited until the backend
  /// reports it began or ended; what the backend already reported about it is taken now.
  func awaitLaunch(_ launch: Launch) {
    awaited[launch.job] = launch.attempt
    guard let early = reportsBeforeLaunch.removeValue(forKey: launch.job) else { return }
    for report in early { receive(report) }
  }

  /// Whether `report` is about a job of a scheduling backend that the engine has not launched
  /// yet; if so, it is kept until the launch.
  func keptUntilLaunched(_ report: BackendReport) -> Bool {
    guard scheduler != nil, let work = report.work, case .attempt = work.purpose else { return false }
    let job = work.job
    guard awaited[job] == nil, attempts[job] == nil, engine.state(of: job) != .finished else { return false }
    reportsBeforeLaunch[job, default: []].append(report)
    return true
  }

  /// The backend saw the awaited job begin: it is executing, timed from now; a job cancelled
  /// while it was awaited is signalled at once.
  func began(_ work: WorkKey, _ handles: [CommandHandle]) {
    guard case .attempt(let number) = work.purpose, awaited[work.job] == number else { return }
    let job = work.job
    awaited[job] = nil
    attempts[job] = RunningAttempt(attempt: number, handles: handles, remaining: handles.count)
    if let timeout = graph.jobs[job].timeout { scheduleTimeout(of: job, attempt: number, after: timeout) }
    engine.didStart(job)
    if let reason = engine.cancelReason(of: job) { take(.signalCancelled(job, reason, attempt: number)) }
  }

  /// The backend ended the awaited job before it ran: it finishes without executing, with
  /// `reason` in its output unless the run cancelled it.
  func endedUnstarted(_ work: WorkKey, reason: String) {
    guard case .attempt(let number) = work.purpose, awaited[work.job] == number else { return }
    let job = work.job
    awaited[job] = nil
    if !engine.isCancelled(job) {
      publish(.output(job: job, stream: .stderr, text: Array("oprun: \(reason)\n".utf8)))
    }
    endingAttempt = (job, .notStarted(reason))
    engine.didNotStart(job)
    endingAttempt = nil
  }

  /// A suspended queue's jobs that have not begun are held on the scheduling backend (its
  /// cluster would start them otherwise); a resumed queue's are released.
  func holdOrRelease(_ queue: QueueID, _ state: QueueState) {
    guard let scheduler else { return }
    let works = graph.jobs.indices.filter { job in
      graph.jobs[job].queue == queue && attempts[job] == nil && engine.state(of: job) != .finished
    }.map { WorkKey(job: $0, purpose: .attempt(engine.attempt(of: $0))) }
    guard !works.isEmpty else { return }
    switch state {
    case .suspended: scheduler.hold(works)
    case .resumed: scheduler.release(works)
    }
  }

  /// The scheduling backend takes back the job's current attempt.
  func withdraw(_ job: JobID) {
    scheduler?.withdraw(WorkKey(job: job, purpose: .attempt(engine.attempt(of: job))))
  }
}

extension BackendReport {
  /// The work the report is about.
  var work: WorkKey? {
    switch self {
    case .output(let work, _, _), .exited(let work, _, _), .began(let work, _), .endedUnstarted(let work, _): work
    }
  }
}
