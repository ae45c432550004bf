import Glibc
import OprunCore

extension Executor {
  /// What oprun does with the signals it traps (SPEC §3.4).
  func handle(signal: Int32) {
    switch signal {
    case SIGINT, SIGTERM, SIGHUP:
      cancelEverything(by: signal)
    case SIGPIPE:
      // Not the kernel's (oprun ignores it): standard output's reader has gone. Cancels
      // as SIGTERM does, unless the run is cancelled already.
      if receivedSignal == nil { cancelEverything(by: signal) }
    case SIGUSR1:
      toggleSuspension()
    case SIGTSTP:
      stopJobsAndSelf()
    case SIGCONT:
      continueStoppedJobs()
    default:
      break
    }
  }

  /// The first SIGINT/SIGTERM/SIGHUP cancels every queue; a second one kills everything.
  private func cancelEverything(by signal: Int32) {
    guard receivedSignal == nil else {
      killEverything()
      return
    }
    receivedSignal = signal
    engine.cancelAll(reason: signal == SIGINT ? .interrupt : .terminate)
    launchReady()
  }

  /// SIGUSR1: suspend every queue, or resume them all if every one is suspended.
  private func toggleSuspension() {
    let queues = graph.queues.indices
    let suspend = !queues.allSatisfy(engine.isSuspended)
    for queue in queues { engine.setSuspended(queue, suspend) }
    launchReady()
  }

  /// Ctrl-Z: the running jobs' groups stop first, then oprun itself; when the shell
  /// continues oprun (`fg`), SIGCONT reaches the trap and the groups continue.
  private func stopJobsAndSelf() {
    stoppedGroups = Array(ownChildGroups())
    for group in stoppedGroups { signalGroup(group, SIGSTOP) }
    trap?.stopSelf()
    continueStoppedJobs()
  }

  private func continueStoppedJobs() {
    for group in stoppedGroups { signalGroup(group, SIGCONT) }
    stoppedGroups = []
  }
}
