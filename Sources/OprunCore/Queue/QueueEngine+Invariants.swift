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
      let expectedEntries = consoleWaiters.contains(job) || ledger?.isParked[job] == true ? 0 : 1
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
    if let ledger { problems += budgetViolations(ledger) }
    return problems
  }

  /// Where what running jobs hold disagrees with their needs, passes the budget, or the
  /// jobs waiting for resources are not the ready ones the budget refused.
  private func budgetViolations(_ ledger: ResourceLedger) -> [String] {
    var problems: [String] = []
    var cpus = 0
    var memory = 0
    for job in graph.jobs.indices where phase[job] == .launching || phase[job] == .executing {
      cpus += ledger.needs[job].cpus ?? 0
      memory += ledger.needs[job].memory ?? 0
      if ledger.isWaiting[job] { problems.append("running job \(job) still waits for resources") }
    }
    if cpus != ledger.heldCPUs || memory != ledger.heldMemory {
      problems.append("held \(ledger.heldCPUs) CPUs, \(ledger.heldMemory) bytes; running jobs need \(cpus), \(memory)")
    }
    if let budget, !budgetWasLoweredBelowUse, cpus > budget.cpus || memory > budget.memory {
      problems.append("running jobs need \(cpus) CPUs, \(memory) bytes: more than the budget \(budget.description)")
    }
    for job in ledger.waiting where !ledger.isWaiting[job] || phase[job] != .ready {
      problems.append("job \(job) listed as waiting for resources in phase \(phase[job])")
    }
    if ledger.waiting.count != ledger.isWaiting.count(where: { $0 }) {
      problems.append("\(ledger.waiting.count) jobs listed as waiting for resources, \(ledger.isWaiting.count(where: { $0 })) marked")
    }
    let first = ledger.waiting.min { reservationOrder(of: $0) < reservationOrder(of: $1) }
    if let reserved = ledger.reserved, !ledger.isWaiting[reserved] {
      problems.append("reserved job \(reserved) does not wait")
    } else if (ledger.reserved == nil) != (first == nil) {
      problems.append("reservation \(String(describing: ledger.reserved)) with \(ledger.waiting.count) waiting")
    }
    return problems
  }
}
