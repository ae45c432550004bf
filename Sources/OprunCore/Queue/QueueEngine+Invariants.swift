extension QueueEngine {
  /// Traps when the engine's bookkeeping disagrees with itself; O(jobs), for tests and debugging.
  func checkInvariants() {
    let problems = invariantViolations()
    precondition(problems.isEmpty, problems.joined(separator: "; "))
  }

  /// Where the engine's bookkeeping disagrees with itself; empty when it is consistent.
  func invariantViolations() -> [String] {
    var problems: [String] = []
    var running = Array(repeating: 0, count: queues.count)
    var liveEntries = Array(repeating: 0, count: graph.jobs.count)
    for queue in queues.indices {
      if let problem = queues[queue].heap.orderViolation() { problems.append("queue \(queue): \(problem)") }
      for entry in queues[queue].heap.entries where entry.sequence == sequences[entry.job] {
        liveEntries[entry.job] += 1
      }
    }
    var finished = 0
    for job in graph.jobs.indices {
      switch phase[job] {
      case .launching, .executing: running[queue(of: job)] += 1
      case .finished: finished += 1
      case .pending, .checking, .ready: break
      }
      if (phase[job] == .finished) != (outcomes[job] != nil) { problems.append("outcome of \(job) out of step") }
      let expectedEntries = consoleWaiters.contains(job) ? 0 : 1
      if phase[job] == .ready, liveEntries[job] != expectedEntries {
        problems.append("ready job \(job) has \(liveEntries[job]) live heap entries")
      }
      if phase[job] == .pending || phase[job] == .checking, cancelReason[job] != nil {
        problems.append("cancelled job \(job) still \(phase[job] == .pending ? "pending" : "waiting for its files")")
      }
      if phase[job] == .checking, liveEntries[job] != 0 {
        problems.append("job \(job) waiting for its files has \(liveEntries[job]) live heap entries")
      }
      if phase[job] == .pending, hasStarted, unfinishedDependencies[job] <= 0 {
        problems.append("job \(job) pending with nothing to wait for")
      }
    }
    if finished != finishedCount { problems.append("finished count \(finishedCount), jobs finished \(finished)") }
    for queue in queues.indices where running[queue] != queues[queue].running {
      problems.append("queue \(queue) counts \(queues[queue].running) running, holds \(running[queue])")
    }
    return problems
  }
}
