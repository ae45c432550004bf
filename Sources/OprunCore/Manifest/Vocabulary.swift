/// `queuePriority`: orders ready operations within one queue.
public enum Priority: Int, Comparable, Sendable, CaseIterable {
  case veryLow = -8
  case low = -4
  case normal = 0
  case high = 4
  case veryHigh = 8

  /// The manifest's word for this priority.
  public var word: String {
    switch self {
    case .veryLow: "veryLow"
    case .low: "low"
    case .normal: "normal"
    case .high: "high"
    case .veryHigh: "veryHigh"
    }
  }

  public init?(word: String) {
    guard let match = Self.allCases.first(where: { $0.word == word }) else { return nil }
    self = match
  }

  public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
}

/// `qualityOfService`: how the operating system treats a job's processes.
public enum QualityOfService: String, Sendable, CaseIterable {
  case userInteractive
  case userInitiated
  case utility
  case background
  case `default`

  /// The priority band a job takes from its QoS when it has no explicit priority
  /// and its queue is not serial (Foundation's behaviour).
  public var priorityBand: Priority {
    switch self {
    case .userInteractive: .veryHigh
    case .userInitiated: .high
    case .default: .normal
    case .utility: .low
    case .background: .veryLow
    }
  }
}

/// `run-if`: whether a ready job runs, given its dependencies' outcomes.
public enum RunCondition: String, Sendable, CaseIterable {
  /// Every dependency succeeded (the default).
  case success
  /// Whatever the dependencies' outcomes: Foundation's own semantics.
  case always
  /// At least one dependency failed or was cancelled.
  case failure
}

/// `on-failure`: what a run does after the first failed job.
public enum FailurePolicy: String, Sendable, CaseIterable {
  /// Start nothing new, cancel what has not started, let running jobs finish.
  case stop
  /// Run everything whose `run-if` allows.
  case `continue`
  /// Cancel running jobs too, as Ctrl-C does.
  case cancelAll = "cancel-all"
}
