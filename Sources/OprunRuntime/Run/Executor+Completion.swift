import Glibc
import OprunCore

extension Executor {
  /// A job finished: its completion command runs now, outside every queue's limit (as a
  /// completion block does), whatever the outcome; after a second interrupt, none runs.
  func startCompletion(of transition: Transition) {
    let job = graph.jobs[transition.job]
    guard let command = job.completion, !killedEverything else { return }
    let status = transition.outcome ?? .cancelled
    let exitCode = transition.termination.map(Self.shellStatus) ?? ""
    let env = environment.entries(
      for: job, queue: graph.queues[job.queue].name, attempt: transition.attempt,
      extra: [EnvironmentEntry("OPRUN_JOB_STATUS", status.rawValue), EnvironmentEntry("OPRUN_EXIT_CODE", exitCode)])
    let request = SpawnRequest(
      command: command, environment: env, workingDirectory: job.cwd ?? manifestFolder, qos: job.qos,
      mergesStandardError: true)
    switch spawner.spawn(request) {
    case .success(let process):
      let group = process.processGroup
      completionGroups.insert(group)
      registerGroup(group)
      bus.publish(.completionStarted(job: job.id, pid: process.pid))
      watch(process, of: job.id) { [unowned self] termination in
        completionGroups.remove(group)
        bus.publish(.completion(job: job.id, termination: termination))
      }
    case .failure(let error):
      bus.publish(.output(job: job.id, stream: .stderr, text: Array("oprun: completion: \(error)\n".utf8)))
      bus.publish(.completion(job: job.id, termination: .exited(127)))
    }
  }

  /// `$?` as a shell reports it: the exit code, or 128 + the signal.
  static func shellStatus(_ termination: Termination) -> String {
    switch termination {
    case .exited(let code): String(code)
    case .signalled(let signal): String(128 + signal)
    }
  }
}
