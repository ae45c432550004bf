import OprunCore

/// What each job's attempts used (SPEC §12), kept from the end of an attempt to the
/// transitions that carry it: a retry's carries its attempt's figures, the job's `finished`
/// carries every attempt's together (CPU times summed, the largest peak) — what the job cost
/// the machine, however many tries it took.
///
/// Invariants: `total[job]` is `lastAttempt[job]` combined with every earlier attempt's
/// figures; both are nil until an attempt of the job reported any. O(1) per update.
struct UsageTable {
  private var lastAttempt: [ResourceUsage?]
  private var total: [ResourceUsage?]

  init(jobs: Int) {
    lastAttempt = Array(repeating: nil, count: jobs)
    total = Array(repeating: nil, count: jobs)
  }

  /// An attempt of `job` ended, having used `usage` (nil: nothing was measured).
  mutating func attemptEnded(_ job: JobID, using usage: ResourceUsage?) {
    lastAttempt[job] = usage
    total[job] = total[job].combined(with: usage)
  }

  /// What the transition is to carry: the attempt's figures on a retry (`executing → ready`),
  /// the job's on `finished` after it executed; nil on any other.
  func usage(for transition: Transition) -> ResourceUsage? {
    guard transition.from == .executing else { return nil }
    switch transition.to {
    case .ready: return lastAttempt[transition.job]
    case .finished: return total[transition.job]
    case .pending, .executing: return nil
    }
  }
}
