import Glibc
import OprunCore

extension Executor {
  /// Spawns every command of `launch` and tells the engine; a command that cannot start
  /// fails the job with a message in its output, it never stops the run.
  func launch(_ launch: Launch) {
    // A failure earlier in this batch may have cancelled it (on-failure: cancel-all):
    // then nothing starts, and it finishes cancelled at once.
    if engine.isCancelled(launch.job) {
      engine.didNotStart(launch.job)
      return
    }
    let job = graph.jobs[launch.job]
    let queueName = graph.queues[job.queue].name
    let env = environment.entries(for: job, queue: queueName, attempt: launch.attempt)
    var state = RunningJob(groups: [], remaining: 0)
    var failures: [SpawnError] = []
    for command in job.commands {
      let request = SpawnRequest(
        command: command, environment: env, workingDirectory: job.cwd ?? manifestFolder, qos: job.qos,
        interactive: job.interactive, mergesStandardError: true)
      switch spawner.spawn(request) {
      case .success(let process):
        state.groups.append((process.processGroup, registerGroup(process.processGroup)))
        state.remaining += 1
        watch(process, of: launch.job) { [unowned self] termination in commandExited(launch.job, termination) }
      case .failure(let error):
        state.termination = .exited(127)
        failures.append(error)
      }
    }
    if let timeout = job.timeout, state.remaining > 0 {
      state.timeoutTimer = loop.schedule(after: timeout) { [unowned self] in engine.timedOut(launch.job) }
    }
    running[launch.job] = state
    engine.didStart(launch.job, pids: state.groups.map(\.group))
    for error in failures {
      bus.publish(.output(job: launch.job, stream: .stderr, text: Array("oprun: \(error)\n".utf8)))
    }
    if state.remaining == 0 { finish(launch.job) }
  }

  /// Watches a process of `job` (a command or its completion): its output goes on the bus
  /// as the job's, its exit to `onExit`.
  func watch(_ process: SpawnedProcess, of job: JobID, onExit: @escaping (Termination) -> Void) {
    loop.watchProcess(
      process, output: framing,
      onOutput: { [unowned self] stream, bytes in
        bus.publish(.output(job: job, stream: stream, text: Array(bytes)))
      },
      onExit: onExit)
  }

  private func commandExited(_ job: JobID, _ termination: Termination) {
    guard var state = running[job] else { return }
    state.remaining -= 1
    if state.termination.isSuccess && !termination.isSuccess { state.termination = termination }
    running[job] = state
    if state.remaining == 0 { finish(job) }
  }

  /// Every command of `job` has exited: the engine decides the outcome (and a retry).
  private func finish(_ job: JobID) {
    guard let state = running.removeValue(forKey: job) else { return }
    if let timer = state.timeoutTimer { loop.cancelTimer(timer) }
    engine.didFinish(job, termination: state.termination)
    launchReady()
  }
}
