import OprunCore

/// What followed from each failure, so that the summary can tell the cause once and its
/// effects after it ("c, d: skipped because a failed") and a reader of a long log finds the
/// root at once.
extension RunSummary {
  /// The jobs one failure made skip or cancel, of one outcome, in the order they finished.
  public struct Consequence: Sendable, Equatable {
    public var outcome: Outcome
    public var jobs: [JobID]

    public init(outcome: Outcome, jobs: [JobID]) {
      self.outcome = outcome
      self.jobs = jobs
    }
  }

  /// For each failed or timed-out job, the jobs that were skipped (`run-if` after it, directly
  /// or through other skipped jobs) or cancelled by the failure policy because of it: skipped
  /// first, then cancelled. A job skipped after several failures is counted under the one that
  /// finished first; jobs cancelled by a signal or by `oprun ctl` follow from no failure.
  public func consequences(in graph: JobGraph) -> [JobID: [Consequence]] {
    var finishOrder: [JobID: Int] = [:]
    for (index, result) in results.enumerated() { finishOrder[result.job] = index }
    let policyCause = failures.first?.job
    // Each job's root failure. A job is skipped only once its dependencies have finished, so
    // one pass in finishing order sees every dependency's root before the job itself.
    var root: [JobID: JobID] = [:]
    var skipped: [JobID: [JobID]] = [:]
    var cancelled: [JobID: [JobID]] = [:]
    for result in results {
      switch (result.outcome, result.cancelReason) {
      case (.skipped, .dependencyFailed?):
        let causes = graph.jobs[result.job].dependencies.compactMap { dependency -> JobID? in
          guard let index = finishOrder[dependency] else { return nil }
          return results[index].isFailure ? dependency : root[dependency]
        }
        guard let cause = causes.min(by: { finishOrder[$0, default: .max] < finishOrder[$1, default: .max] }) else {
          continue
        }
        root[result.job] = cause
        skipped[cause, default: []].append(result.job)
      case (.cancelled, .failurePolicy?):
        guard let policyCause else { continue }
        root[result.job] = policyCause
        cancelled[policyCause, default: []].append(result.job)
      default:
        continue
      }
    }
    var consequences: [JobID: [Consequence]] = [:]
    for failure in failures {
      var list: [Consequence] = []
      if let jobs = skipped[failure.job] { list.append(Consequence(outcome: .skipped, jobs: jobs)) }
      if let jobs = cancelled[failure.job] { list.append(Consequence(outcome: .cancelled, jobs: jobs)) }
      if !list.isEmpty { consequences[failure.job] = list }
    }
    return consequences
  }
}
