extension JobGraph {
  /// Every job after all its dependencies, and among the jobs free to go the lowest id
  /// (manifest order) first: the order `--resume` and the critical path walk the graph in,
  /// and the order a scheduling backend submits a run in (its FIFO ties).
  public func topologicalOrder() -> [JobID] {
    var waiting = jobs.map(\.dependencies.count)
    var free = MinHeap<JobID>()
    for job in jobs.indices where waiting[job] == 0 { free.push(job) }
    var order: [JobID] = []
    order.reserveCapacity(jobs.count)
    while let job = free.popMin() {
      order.append(job)
      for dependent in jobs[job].dependents {
        waiting[dependent] -= 1
        if waiting[dependent] == 0 { free.push(dependent) }
      }
    }
    return order
  }
}
