import OprunCore

/// A job that declares resources runs in a cgroup of its own, one per attempt, where one can
/// be made (SPEC §12): held to its memory, measured as a whole group, and what it leaves
/// running stays in it until the run ends. An emptied cgroup is reset and given to a later
/// attempt.
extension LocalBackend {
  /// The cgroup of an executing attempt: its commands that have not exited, and what their
  /// reaped processes used, for a cgroup whose counters cannot be read.
  struct AttemptCgroup {
    var group: JobCgroup
    var commandsLeft: Int
    var measured: ResourceUsage?
    /// Whether a command of the attempt has ended otherwise than with status 0.
    var failed = false
  }

  /// Makes the run's cgroup folders when some job declares resources; where none can be
  /// made, says once that memory is scheduled and measured but not enforced.
  func makeRunCgroups() {
    guard let name = cgroupRunName else { return }
    switch JobCgroups.make(named: name) {
    case .success(let made):
      cgroups = made
    case .failure(let unavailable):
      onWarning?("memory is scheduled and measured but not enforced: \(unavailable.reason)")
    }
  }

  /// The cgroup `work`'s processes join: an attempt of a job that declares resources, on a
  /// run that has cgroups. Nil otherwise, or when it cannot be made (the attempt then runs
  /// measured by its reaped processes).
  func makeCgroup(for work: WorkOrder) -> JobCgroup? {
    guard let cgroups, work.needs.declaresAny, work.work.attempt != nil else { return nil }
    return cgroups.create(memory: work.needs.memory)
  }

  /// Every command of the attempt has been started (`started` of them): no other process
  /// may join its cgroup, which is followed until the last of them exits.
  func keep(_ cgroup: JobCgroup, of work: WorkKey, started: Int) {
    cgroup.closeJoining()
    guard started > 0 else {
      cgroups?.release(cgroup)
      return
    }
    attemptCgroups[work] = AttemptCgroup(group: cgroup, commandsLeft: started)
  }

  /// What to report for a command of `work` that ended with `termination` having used
  /// `measured`: for an attempt in a cgroup, nothing until its last command exits, then the
  /// cgroup's figures (or, where they cannot be read, its commands' together), and its cgroup
  /// is released: as empty, without reading it, when `nothingLeftBehind` (no process outlived
  /// its command's first one, see ``listAdoptedGroups()``), since every process of the attempt
  /// descends from its commands' first processes.
  func usageAtExit(of work: WorkKey, _ termination: Termination, measured: ResourceUsage?, nothingLeftBehind: Bool)
    -> ResourceUsage?
  {
    guard var entry = attemptCgroups[work] else { return measured }
    entry.commandsLeft -= 1
    entry.measured = entry.measured.combined(with: measured)
    entry.failed = entry.failed || !termination.isSuccess
    guard entry.commandsLeft == 0 else {
      attemptCgroups[work] = entry
      return nil
    }
    attemptCgroups[work] = nil
    let usage =
      cgroups?.usage(of: entry.group, measured: entry.measured, failed: entry.failed) ?? entry.measured
    cgroups?.release(entry.group, knownEmpty: nothingLeftBehind)
    return usage
  }
}
