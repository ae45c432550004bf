/// The last lines of output of each job that failed or timed out, taken from a run's events
/// as they come: what the summary, the journal and the report show of a failure.
///
/// A job's tail is kept while it has not finished (over its retries), and once it finished
/// only if it failed: a run of many jobs holds the tails of its unfinished jobs and of its
/// failures, never those of its successes. Output that comes after a failed job finished (from
/// something it left running) still joins its tail.
public struct FailureTails: Sendable, Equatable {
  /// How many lines each tail keeps.
  public let capacity: Int
  /// Lines longer than this many bytes are cut (``OutputTail``).
  public let maximumLineLength: Int
  /// The tail of every job that finished failed or timed out (empty when it printed nothing),
  /// until it is taken.
  public private(set) var failures: [JobID: OutputTail] = [:]

  /// Invariant: holds no job that finished.
  private var unfinished: [JobID: OutputTail] = [:]
  /// Jobs whose later output is of no use: they finished without failing, or their tail was taken.
  private var done: Set<JobID> = []

  public init(capacity: Int, maximumLineLength: Int = 400) {
    self.capacity = capacity
    self.maximumLineLength = maximumLineLength
  }

  /// Takes `text` (whole lines) that `job` printed into account.
  public mutating func record(_ text: [UInt8], of job: JobID) {
    if done.contains(job) { return }
    if failures[job] != nil {
      failures[job]!.append(text)
    } else {
      let empty = emptyTail
      unfinished[job, default: empty].append(text)
    }
  }

  /// `job` finished with `outcome`: its tail is kept if it failed or timed out.
  public mutating func finish(_ job: JobID, outcome: Outcome) {
    let tail = unfinished.removeValue(forKey: job)
    if outcome == .failed || outcome == .timedOut {
      failures[job] = tail ?? emptyTail
    } else {
      done.insert(job)
    }
  }

  /// Hands over the tail of `job`, a failure, and keeps nothing more of it; nil when it is
  /// no failure.
  public mutating func take(_ job: JobID) -> OutputTail? {
    guard let tail = failures.removeValue(forKey: job) else { return nil }
    done.insert(job)
    return tail
  }

  private var emptyTail: OutputTail { OutputTail(capacity: capacity, maximumLineLength: maximumLineLength) }
}
