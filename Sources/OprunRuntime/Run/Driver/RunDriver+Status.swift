import OprunCore

/// The answer to `oprun ctl status` (SPEC §8).
extension RunDriver {
  /// `"run":{…},"queues":[…],"jobs":[…]`: the run (`pid`, `run`, `manifest`, `started`,
  /// `counts`), every queue in manifest order (`name`, `max_concurrent`, `running`,
  /// `suspended`) and every job in manifest order (`name`, `queue`, `state`, `outcome`,
  /// `cancelled`, `priority`, `pids`, and `paused`). `counts` has the jobs pending, ready
  /// and executing, then the finished ones per outcome. Linear in the jobs: each is visited
  /// once to count it and once to write it.
  func statusMembers(of identity: RunIdentity) -> [UInt8] {
    var object = JSONObjectWriter()
    object.field("run") { run in
      run.field("pid", Int(identity.pid))
      run.field("run", identity.id)
      run.field("manifest", identity.manifestPath)
      run.field("started", identity.started, fractionDigits: 3)
      run.field("counts") { counts in writeCounts(to: &counts) }
    }
    object.field("queues", objects: graph.queues.indices) { queue, member in
      member.field("name", graph.queues[queue].name)
      member.field("max_concurrent", engine.maxConcurrent(of: queue))
      member.field("running", engine.runningCount(queue: queue))
      member.field("suspended", engine.isSuspended(queue))
    }
    object.field("jobs", objects: graph.jobs.indices) { job, member in
      member.field("name", graph.jobs[job].name)
      member.field("queue", graph.queues[graph.jobs[job].queue].name)
      member.field("state", engine.state(of: job).rawValue)
      member.field("outcome", engine.outcome(of: job)?.rawValue)
      member.field("cancelled", engine.isCancelled(job))
      member.field("priority", engine.effectivePriority(of: job).word)
      let attempt = attempts[job]
      member.field("pids", attempt?.handles.map { Int($0.id) } ?? [])
      member.field("paused", attempt?.pause != nil)
    }
    return object.members
  }

  /// `pending`, `ready`, `executing`, then every outcome, each a number.
  private func writeCounts(to counts: inout JSONObjectWriter) {
    var (pending, ready, executing) = (0, 0, 0)
    for job in graph.jobs.indices {
      switch engine.state(of: job) {
      case .pending: pending += 1
      case .ready: ready += 1
      case .executing: executing += 1
      case .finished: break
      }
    }
    counts.field(named: "pending", pending)
    counts.field(named: "ready", ready)
    counts.field(named: "executing", executing)
    for outcome in Outcome.allCases { counts.field(named: outcome.rawValue, engine.counts[outcome] ?? 0) }
  }
}
