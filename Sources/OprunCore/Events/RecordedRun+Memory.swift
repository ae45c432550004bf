extension RecordedRun {
  /// How much memory the run's jobs held at one moment on: from `time` until the next step.
  public struct MemoryStep: Sendable, Equatable {
    public var time: Double
    public var bytes: Int
  }

  /// Memory in use over the run, as steps in time order: each attempt whose end gives a peak
  /// counts at that peak from its start to its end. An upper bound — no job holds its peak
  /// all along — and the one the stream allows (SPEC §12 measures peaks, not curves). Empty
  /// when no attempt gives one.
  public var memoryInUse: [MemoryStep] {
    var changes: [(time: Double, delta: Int)] = []
    for job in jobs {
      for attempt in job.attempts {
        guard let end = attempt.end, let peak = attempt.peakMemory, peak > 0 else { continue }
        changes.append((attempt.start, peak))
        changes.append((max(end, attempt.start), -peak))
      }
    }
    // At one moment, what ends is taken off before what starts is added: never a false spike.
    changes.sort { ($0.time, $0.delta) < ($1.time, $1.delta) }
    var steps: [MemoryStep] = []
    var inUse = 0
    for change in changes {
      inUse += change.delta
      if let last = steps.last, last.time == change.time {
        steps[steps.count - 1].bytes = inUse
      } else {
        steps.append(MemoryStep(time: change.time, bytes: inUse))
      }
    }
    return steps
  }
}
