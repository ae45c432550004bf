extension QueueEngine {
  /// Traps when the engine's bookkeeping disagrees with itself; O(jobs), for tests.
  func checkInvariants() {
    var running = Array(repeating: 0, count: queues.count)
    var liveEntries = Array(repeating: 0, count: graph.jobs.count)
    for queue in queues.indices {
      queues[queue].heap.checkInvariants()
      for entry in queues[queue].heap.entries where entry.sequence == sequences[entry.job] {
        liveEntries[entry.job] += 1
      }
    }
    var finished = 0
    for job in graph.jobs.indices {
      switch phase[job] {
      case .launching, .executing: running[queue(of: job)] += 1
      case .finished: finished += 1
      case .pending, .ready: break
      }
      precondition((phase[job] == .finished) == (outcomes[job] != nil), "outcome of \(job) out of step")
      if phase[job] == .ready {
        precondition(liveEntries[job] == 1, "ready job \(job) has \(liveEntries[job]) live heap entries")
      }
      if phase[job] == .pending {
        precondition(cancelReason[job] == nil, "cancelled job \(job) still pending")
        precondition(unfinishedDependencies[job] > 0 || !hasStarted, "job \(job) pending with nothing to wait for")
      }
    }
    precondition(finished == finishedCount, "finished count out of step")
    for queue in queues.indices {
      precondition(running[queue] == queues[queue].running, "running count of queue \(queue) out of step")
    }
  }
}
