import OprunCore

extension RunDriver {
  /// A job finished: its completion command runs now, outside every queue's limit (as a
  /// completion block does), whatever the outcome; after everything was killed, none runs.
  func startCompletion(after transition: Transition) {
    let job = graph.jobs[transition.job]
    guard let command = job.completion, !lifecycle.killedEverything else { return }
    let status = transition.outcome ?? .cancelled
    let exitCode = transition.termination?.shellStatus.map(String.init) ?? ""
    let variables = [
      EnvironmentEntry("OPRUN_JOB_STATUS", status.rawValue), EnvironmentEntry("OPRUN_EXIT_CODE", exitCode),
    ]
    let order = WorkOrder(
      work: WorkKey(job: job.id, purpose: .completion), commands: [command],
      environment: environment(of: job, attempt: transition.attempt, extra: variables),
      workingDirectory: job.cwd ?? manifestFolder, qos: job.qos, interactive: false, timeout: nil)
    switch backend.start(order).first {
    case .success(let handle):
      attempts.completionStarted(job.id, handle)
      publish(.completionStarted(job: job.id, pid: handle.id))
    case .failure(let failure):
      publish(.output(job: job.id, stream: .stderr, text: Array("oprun: completion: \(failure)\n".utf8)))
      publish(.completion(job: job.id, termination: .notStarted(failure.description)))
    case nil:
      break
    }
  }
}

extension Termination {
  /// `$?` as a shell reports it: the exit code, or 128 + the signal; nil for a command
  /// that never ran.
  var shellStatus: Int32? {
    switch self {
    case .exited(let code): code
    case .signalled(let signal): ExitStatus.signalled(signal)
    case .notStarted: nil
    }
  }
}
