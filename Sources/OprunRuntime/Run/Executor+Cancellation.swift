import Glibc
import OprunCore

extension Executor {
  /// The engine raised `job`'s cancelled flag: if it is executing, its groups get the
  /// signal that matches the reason, and SIGKILL once the grace period is over — even if
  /// the job's own process exits first, whatever it left in its group goes too.
  func signalCancelled(_ job: JobID, reason: CancelReason) {
    guard var state = running[job], !state.signalled else { return }
    state.signalled = true
    running[job] = state
    let signal = reason == .interrupt ? SIGINT : SIGTERM
    let groups = state.groups
    for group in groups { signalGroup(group, signal) }
    loop.schedule(after: grace) {
      for group in groups where processGroupExists(group) { signalGroup(group, SIGKILL) }
    }
  }

  /// A second interrupt: every process group of the run dies now, completions included,
  /// and no completion starts any more.
  func killEverything() {
    killedEverything = true
    for group in jobGroups + Array(completionGroups) where processGroupExists(group) {
      signalGroup(group, SIGKILL)
    }
  }

  /// When the run ends, nothing it started may outlive it: what jobs left running in their
  /// groups (`server &`) gets SIGTERM, then SIGKILL after the grace period.
  func sweepLeftoverGroups() {
    var leftovers = jobGroups.filter(Self.isAlive)
    guard !leftovers.isEmpty else { return }
    for group in leftovers { signalGroup(group, SIGTERM) }
    let deadline = loop.now() + grace
    var done = false
    func check() {
      leftovers = leftovers.filter(Self.isAlive)
      if leftovers.isEmpty {
        done = true
      } else if loop.now() >= deadline {
        for group in leftovers { signalGroup(group, SIGKILL) }
        done = true
      } else {
        loop.schedule(after: 0.01) { check() }
      }
    }
    check()
    loop.run { done }
  }

  /// Whether a group whose leader was reaped still has a live member; its exited members
  /// (oprun's children, as the run's subreaper) are reaped on the way.
  private static func isAlive(_ group: Int32) -> Bool {
    reapExitedMembers(of: group)
    return processGroupExists(group)
  }
}
