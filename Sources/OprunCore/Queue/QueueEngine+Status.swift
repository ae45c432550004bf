/// Read access for status views (`oprun ctl status`, the live status line, the summary).
extension QueueEngine {
  /// Every job has finished.
  public var isDrained: Bool { finishedCount == graph.jobs.count }

  /// 0 when every job succeeded or was skipped by its `run-if`; 1 when any failed, timed
  /// out or was cancelled — but for a change under `--watch`, which ends a cycle without
  /// failing it. A run ended by a signal ends by that signal instead (the runtime's part).
  public func exitStatus() -> Int32 {
    let failures = [Outcome.failed, .timedOut, .cancelled].reduce(0) { $0 + outcomeCounts[$1, default: 0] }
    let cancelledByChange = graph.jobs.indices.count { outcomes[$0] == .cancelled && cancelReason[$0] == .changed }
    return failures == cancelledByChange ? ExitStatus.success : ExitStatus.failure
  }

  /// Finished jobs per outcome; every outcome is present, zero when none.
  public var counts: [Outcome: Int] { outcomeCounts }

  /// A launched job counts as ready until ``didStart(_:)``.
  public func state(of job: JobID) -> JobState { phase[job].state }

  /// Nil until the job finishes.
  public func outcome(of job: JobID) -> Outcome? { outcomes[job] }

  public func isCancelled(_ job: JobID) -> Bool { cancelReason[job] != nil }

  /// Why the cancelled flag was raised; nil while it is down.
  public func cancelReason(of job: JobID) -> CancelReason? { cancelReason[job] }

  /// The current (or last) attempt, 1-based.
  public func attempt(of job: JobID) -> Int { attempts[job] }

  /// Slots held in `queue`: jobs executing or launched and about to.
  public func runningCount(queue: QueueID) -> Int { queues[queue].running }

  public func isSuspended(_ queue: QueueID) -> Bool { queues[queue].suspended }

  public func maxConcurrent(of queue: QueueID) -> Int { queues[queue].maxConcurrent }

  /// The band the job competes in: its explicit priority, else its QoS band off serial
  /// queues, or what a live change set.
  public func effectivePriority(of job: JobID) -> Priority { bands[job] }
}
