/// One line of `oprun --dry-run`: a job and why it starts where it does.
public struct PlanStep: Sendable, Equatable {
  public var job: JobID
  /// The band it competes in (explicit priority, else its QoS band off serial queues).
  public var band: Priority
  /// Its dependencies, which all start before it.
  public var waitsFor: [JobID]
  /// For people: what it waits for, where its band comes from, and its `run-if` when not
  /// the default, e.g. `waits for fetch; priority high (qos userInitiated); manifest order #3`.
  public var reason: String

  public init(job: JobID, band: Priority, waitsFor: [JobID], reason: String) {
    self.job = job
    self.band = band
    self.waitsFor = waitsFor
    self.reason = reason
  }
}

extension JobGraph {
  /// The order in which a serial run where every job succeeds would start the jobs:
  /// repeatedly the ready job of the highest band, first in manifest order (or, given a
  /// `criticalPath`, first by its ranks), as the queue engine orders one queue — here across
  /// all queues, since one job runs at a time.
  public func plan(criticalPath: CriticalPath? = nil) -> [PlanStep] {
    let sequences = criticalPath?.ranks ?? Array(jobs.indices)
    var waiting = jobs.map { $0.dependencies.count }
    var ready = ReadyHeap()
    for job in jobs where job.dependencies.isEmpty {
      ready.push(job: job.id, band: band(of: job), sequence: sequences[job.id])
    }
    var steps: [PlanStep] = []
    steps.reserveCapacity(jobs.count)
    while let entry = ready.popTop() {
      let job = jobs[entry.job]
      steps.append(PlanStep(job: job.id, band: band(of: job), waitsFor: job.dependencies, reason: planReason(for: job)))
      for dependent in job.dependents {
        waiting[dependent] -= 1
        if waiting[dependent] == 0 {
          ready.push(job: dependent, band: band(of: jobs[dependent]), sequence: sequences[dependent])
        }
      }
    }
    return steps
  }

  private func band(of job: JobNode) -> Priority {
    job.band(onSerialQueue: queues[job.queue].maxConcurrent == 1)
  }

  private func planReason(for job: JobNode) -> String {
    var parts: [String] = []
    if job.dependencies.isEmpty {
      parts.append("no dependencies")
    } else {
      parts.append("waits for " + job.dependencies.map { jobs[$0].name }.joined(separator: ", "))
    }
    parts.append(bandReason(for: job))
    switch job.runIf {
    case .success: break
    case .always: parts.append("runs whatever its dependencies' outcomes")
    case .failure: parts.append("runs only if a dependency fails")
    }
    parts.append("manifest order #\(job.id + 1)")
    return parts.joined(separator: "; ")
  }

  private func bandReason(for job: JobNode) -> String {
    let serial = queues[job.queue].maxConcurrent == 1
    if let explicit = job.explicitPriority { return "priority \(explicit.word)" }
    if job.qos == .default { return "priority normal" }
    if serial { return "priority normal (serial queue ignores qos \(job.qos.rawValue))" }
    return "priority \(job.qos.priorityBand.word) (qos \(job.qos.rawValue))"
  }
}
