import OprunCore

extension GraphDrawing {
  /// How a job fared in a recorded run, as a colour and a line worded as the run's own
  /// summary words it (`failed (exit 1) in 0.21s`); `runEnd` is when the stream ended, which
  /// a job still executing then has run until.
  static func fate(of job: RecordedRun.Job?, runEnd: Double) -> (NodeStatus, String) {
    guard let job else { return (.notRun, "not run") }
    guard let outcome = job.outcome else {
      guard let started = job.started else { return (.notStarted, "not started") }
      return (.running, "running for " + TimeText.duration(runEnd - started))
    }
    let duration = TimeText.duration(job.duration ?? 0)
    switch outcome {
    case .succeeded:
      return (.succeeded, job.resumed ? "succeeded (resumed)" : "succeeded in " + duration)
    case .failed:
      if let startError = job.startError {
        return (.failed, "failed (not started: \(DisplayText.escaped(startError)))")
      }
      let cause =
        job.signal.map { " (signal " + SignalName.of(Int32(truncatingIfNeeded: $0)) + ")" }
        ?? job.exitCode.map { " (exit \($0))" } ?? ""
      return (.failed, "failed" + cause + " in " + duration)
    case .timedOut:
      return (.timedOut, "timed out after " + duration)
    case .cancelled:
      let reason = job.cancelled.map { " (" + $0.reason.rawValue + ")" } ?? ""
      return (.cancelled, "cancelled" + reason + (job.started == nil ? "" : " after " + duration))
    case .skipped:
      return (.skipped, "skipped")
    }
  }
}

extension GraphDrawing.NodeStatus {
  /// The fill: green for success, red for failure, orange for a timeout, grey for what was
  /// cancelled or skipped, blue for what was still running, white for what never started.
  var fill: String {
    switch self {
    case .succeeded: "#b8e0b0"
    case .failed: "#f2a7a7"
    case .timedOut: "#f7c98b"
    case .cancelled: "#d0d0d0"
    case .skipped: "#e4e4e4"
    case .running: "#a9cbf0"
    case .notStarted, .notRun: "#ffffff"
    }
  }

  /// A job that never started has a dashed outline, one the run never reached grey text too.
  var isDashed: Bool { self == .notStarted || self == .notRun }
  var isFaded: Bool { self == .notRun }
}
