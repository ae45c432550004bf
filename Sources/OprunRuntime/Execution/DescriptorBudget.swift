import Glibc
import OprunCore

/// How many commands this process's open-file limit lets run at once.
///
/// Each running command holds descriptors of oprun's (its output pipe's read end and its
/// pidfd, plus the write end while it is spawned), and each job with outputs one more, its
/// lock between runs (``LockTable``, which may hold ``LockTable/spare`` more for jobs decided
/// and waiting for a slot); a run allowed more at once than the limit can hold would see its
/// starts, or its locks, fail with EMFILE. So the soft limit is raised as far as
/// the run needs (no further than the hard limit; the jobs inherit it, as they would from
/// a shell's `ulimit -n`), and where even that is not enough, the queues' limits are
/// lowered to fit, with one warning. A start that still runs short waits (``RunDriver``).
struct DescriptorBudget {
  /// Descriptors one running command holds at most.
  static let perCommand = 3
  /// Kept for everything else: the sinks, the journal, the control socket and its clients.
  static let reserve = 16

  /// RLIM_INFINITY, which Swift cannot import (a macro of -1 cast to unsigned).
  private static let unlimited = rlim_t.max

  /// The limit in force, after raising it.
  let limit: Int
  /// Open when the run began.
  let open: Int

  /// Descriptors left for the jobs of `graph` that run at once: their commands and locks.
  func available(to graph: JobGraph) -> Int { max(1, limit - open - Self.reserve - graph.spareLocks) }

  /// Raises the soft limit, if need be, to what running `graph`'s queues at their limits needs.
  static func raised(toRun graph: JobGraph) -> DescriptorBudget {
    let open = openDescriptorCount()
    let needed = open + reserve + graph.spareLocks + graph.queueDemand.reduce(0) { $0 + $1.descriptors }
    var limits = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) == 0 else {
      return DescriptorBudget(limit: Int.max / 2, open: open)
    }
    if limits.rlim_cur != Self.unlimited, Int(clamping: limits.rlim_cur) < needed {
      var raised = limits
      raised.rlim_cur = limits.rlim_max == Self.unlimited ? rlim_t(needed) : min(limits.rlim_max, rlim_t(needed))
      if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
    }
    let limit = limits.rlim_cur == Self.unlimited ? Int.max / 2 : Int(clamping: limits.rlim_cur)
    return DescriptorBudget(limit: limit, open: open)
  }

  /// `graph` with its queues' limits lowered, in proportion, so that their commands and
  /// locks fit in the budget; and the warning that says so, or nil when they already fit.
  func fitting(_ graph: JobGraph) -> (JobGraph, warning: String?) {
    let demand = graph.queueDemand
    let wanted = demand.reduce(0) { $0 + $1.descriptors }
    let available = available(to: graph)
    guard wanted > available else { return (graph, nil) }
    var fitted = graph
    var jobsAtOnce = 0
    for (queue, need) in demand.enumerated() where need.jobs > 0 {
      let share = max(1, need.jobs * available / wanted)
      fitted.queues[queue].maxConcurrent = share
      jobsAtOnce += share
    }
    let before = demand.reduce(0) { $0 + $1.jobs }
    return (
      fitted,
      "only \(limit) open files are allowed (ulimit -n): running at most \(jobsAtOnce) "
        + "\(jobsAtOnce == 1 ? "job" : "jobs") at once instead of \(before)"
    )
  }

  /// The entries of /proc/self/fd, but the one listing it.
  private static func openDescriptorCount() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return 3 }
    defer { closedir(directory) }
    var count = 0
    while readdir(directory) != nil { count += 1 }
    return max(count - 3, 0)  // ".", ".." and the listing's own descriptor
  }
}

extension JobGraph {
  /// For each queue: how many of its jobs can run at once (its limit, or fewer if it has
  /// fewer jobs), and how many descriptors those hold at most: their commands', and their
  /// locks' when a job of the queue has outputs.
  fileprivate var queueDemand: [(jobs: Int, descriptors: Int)] {
    var jobCounts = [Int](repeating: 0, count: queues.count)
    var widest = [Int](repeating: 0, count: queues.count)
    var locks = [Int](repeating: 0, count: queues.count)
    for index in jobs.indices {
      let queue = jobs[index].queue
      jobCounts[queue] += 1
      widest[queue] = max(widest[queue], jobs[index].commands.count)
      if !jobs[index].outputs.isEmpty { locks[queue] = 1 }
    }
    return queues.indices.map { queue in
      let jobs = min(queues[queue].maxConcurrent, jobCounts[queue])
      return (jobs, jobs * (DescriptorBudget.perCommand * widest[queue] + locks[queue]))
    }
  }

  /// The locks a run may hold past its queues' slots: none when no job has outputs.
  fileprivate var spareLocks: Int { jobs.contains { !$0.outputs.isEmpty } ? LockTable.spare : 0 }
}
