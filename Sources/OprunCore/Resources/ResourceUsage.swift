/// Where a job's figures come from (SPEC §12): the words of the event stream's `memory_source`.
public enum MemorySource: String, Sendable {
  /// The kernel's accounting of the job's reaped processes: the largest process's peak.
  case process
  /// The job's own cgroup: the whole group's peak.
  case cgroup
}

/// What a job used: CPU time and peak memory, as measured where it ran.
///
/// Invariants: `cpuSeconds` and `peakMemory` are never negative.
public struct ResourceUsage: Sendable, Equatable {
  /// User plus system CPU time, in seconds.
  public var cpuSeconds: Double
  /// The largest resident memory seen, in bytes.
  public var peakMemory: Int
  public var source: MemorySource
  /// Set when the kernel killed a process of the job's cgroup for passing its memory limit:
  /// that limit, in bytes (SPEC §12).
  public var outOfMemoryLimit: Int?

  public init(cpuSeconds: Double, peakMemory: Int, source: MemorySource) {
    self.cpuSeconds = max(cpuSeconds, 0)
    self.peakMemory = max(peakMemory, 0)
    self.source = source
  }

  /// Two measurements of one job taken together — concurrent commands of one attempt, or
  /// the attempts of a job: their CPU times add up, the larger peak is the peak (processes
  /// measured apart are not known to have peaked together), and a cgroup's figures say
  /// `cgroup` only when both are.
  public func combined(with other: ResourceUsage) -> ResourceUsage {
    var both = ResourceUsage(
      cpuSeconds: cpuSeconds + other.cpuSeconds, peakMemory: max(peakMemory, other.peakMemory),
      source: source == other.source ? source : .process)
    both.outOfMemoryLimit = other.outOfMemoryLimit ?? outOfMemoryLimit
    return both
  }
}

extension ResourceUsage? {
  /// `self` combined with `other`; either alone when the other is nil.
  public func combined(with other: ResourceUsage?) -> ResourceUsage? {
    guard let self else { return other }
    guard let other else { return self }
    return self.combined(with: other)
  }
}
