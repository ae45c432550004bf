import OprunCore

/// What each job's attempts used (SPEC §12), kept from the end of an attempt to the
/// transitions that carry it: a retry's carries its attempt's figures, the job's `finished`
/// carries every attempt's together (CPU times summed, the largest peak) — what the job cost
/// the machine, however many tries it took.
///
/// Invariants: `total[job]` is `lastAttempt[job]` combined with every earlier attempt's
/// figures; both are absent until an attempt of the job reported any, and again once its
/// `finished` has carried them, so the table holds only jobs not yet finished. O(1) per update.
struct UsageTable {
  private var lastAttempt: [JobID: ResourceUsage] = [:]
  private var total: [JobID: ResourceUsage] = [:]

  /// An attempt of `job` ended, having used `usage` (nil: nothing was measured).
  mutating func attemptEnded(_ job: JobID, using usage: ResourceUsage?) {
    lastAttempt[job] = usage
    total[job] = total[job].combined(with: usage)
  }

  /// What the transition is to carry: the attempt's figures on a retry (`executing → ready`),
  /// the job's on `finished` after it executed; nil on any other. A job's figures are
  /// forgotten once it has finished.
  mutating func usage(for transition: Transition) -> ResourceUsage? {
    let job = transition.job
    if transition.to == .finished {
      lastAttempt[job] = nil
      let total = self.total.removeValue(forKey: job)
      return transition.from == .executing ? total : nil
    }
    return transition.from == .executing && transition.to == .ready ? lastAttempt[job] : nil
  }
}
