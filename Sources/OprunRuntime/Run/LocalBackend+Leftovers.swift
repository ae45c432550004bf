import Glibc

extension LocalBackend {
  /// When the run ends, nothing it started may outlive it: what jobs left running in their
  /// groups (`server &`) gets SIGTERM, then SIGKILL after the grace period. By then every
  /// job and completion has been reaped, so any child left is a leftover to reap here.
  /// Then what the leftovers wrote and nobody has read yet is reported, and the pipes that
  /// processes detached with `setsid` still hold are closed rather than waited for. Then
  /// the run's cgroups are removed (what is still in them killed: a job's `setsid`
  /// descendants too), and the watchdog is dismissed: had oprun died before, it would have
  /// done the same.
  func endRun(grace: Double) {
    endLeftoverProcesses(grace: grace)
    leftoverOutput.readLastAndClose()
    cgroups?.removeAll()
    cgroups = nil
    watchdog?.dismiss()
    watchdog = nil
  }

  private func endLeftoverProcesses(grace: Double) {
    // Exited leftovers are reaped here rather than left as zombies to an init that may
    // reap them late, which would keep their groups looking alive after oprun has gone.
    reapExitedChildren()
    let leftovers = ownChildGroups()
    guard !leftovers.isEmpty else { return }
    for group in leftovers { signalGroup(group, SIGTERM) }
    let deadline = loop.now() + grace
    var killed = false
    var done = false
    func check() {
      reapExitedChildren()
      let remaining = ownChildGroups()
      // A process that SIGKILL cannot end (stuck in the kernel) is given up on after a second.
      if remaining.isEmpty || loop.now() >= deadline + 1 {
        done = true
        return
      }
      if !killed && loop.now() >= deadline {
        for group in remaining { signalGroup(group, SIGKILL) }
        killed = true
      }
      loop.schedule(after: 0.01) { check() }
    }
    check()
    loop.run { done }
  }

  /// The groups of the run that still have a living member among oprun's children: those it
  /// created, and those a job's descendant made for itself in oprun's session (`setpgid`, as
  /// a shell's job control does), which oprun adopted as the subreaper of everything its jobs
  /// start. One that detached itself with `setsid` is in a session of its own and is left alone.
  func ownChildGroups() -> Set<Int32> {
    Set(ChildProcessGroups.scan().lazy.filter(isOwn).map(\.group))
  }

  func isOwn(_ child: ChildGroup) -> Bool {
    groupSerials[child.group] != nil || (child.session == session && child.group != getpgrp())
  }

  /// A job's first process exited: what it left in groups of their own, now oprun's children,
  /// is told to the watchdog, so that a SIGKILL of oprun ends them too. Returns whether
  /// oprun's only children are the first processes of running commands: then no process a
  /// finished command started lives on, since what outlives its parent becomes oprun's child
  /// (oprun is their subreaper) before the parent's exit is reported. False when unknown.
  func listAdoptedGroups() -> Bool {
    guard let watchdog else { return false }
    var onlyRunningCommands = true
    let adopted = adoptedChildren.groups { pid in
      if runningGroups.contains(pid) { return true }
      onlyRunningCommands = false
      return groupSerials[pid] != nil || adoptedGroups.contains(pid)
    }
    for child in adopted where groupSerials[child.group] == nil && isOwn(child) {
      if adoptedGroups.insert(child.group).inserted { watchdog.watch(child.group) }
    }
    return onlyRunningCommands && adoptedChildren.listed
  }

  /// Reaps every child that has exited. Only once no job or completion is being watched:
  /// their statuses belong to their own watches.
  private func reapExitedChildren() {
    var status: Int32 = 0
    while waitpid(-1, &status, WNOHANG) > 0 {}
  }
}
