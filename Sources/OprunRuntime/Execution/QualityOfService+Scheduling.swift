import Glibc
import OprunCore

/// How the operating system treats a job's processes, derived from its QoS.
public struct Scheduling: Equatable, Sendable {
  /// Added to oprun's own niceness (then clamped to -20...19).
  public var nicenessOffset: Int32
  /// Set on the child; nil keeps oprun's own.
  public var ioPriority: IOPriority?

  public init(nicenessOffset: Int32, ioPriority: IOPriority?) {
    self.nicenessOffset = nicenessOffset
    self.ioPriority = ioPriority
  }
}

extension QualityOfService {
  /// The fixed table (docs/QOS.md):
  ///
  /// | QoS             | niceness         | I/O priority  |
  /// | --------------- | ---------------- | ------------- |
  /// | background      | oprun's + 10     | idle          |
  /// | utility         | oprun's + 5      | best-effort 7 |
  /// | default         | oprun's          | oprun's       |
  /// | userInitiated   | oprun's − 2 (*)  | best-effort 2 |
  /// | userInteractive | oprun's − 5 (*)  | best-effort 0 |
  ///
  /// (*) Lowering niceness needs privilege (root, CAP_SYS_NICE or RLIMIT_NICE);
  /// without it the child keeps oprun's niceness, silently. Niceness is
  /// clamped to -20...19. Both are applied in the child before its command
  /// runs, so every process the command starts inherits them.
  public var scheduling: Scheduling {
    switch self {
    case .background: Scheduling(nicenessOffset: 10, ioPriority: .idle)
    case .utility: Scheduling(nicenessOffset: 5, ioPriority: .bestEffort(7))
    case .default: Scheduling(nicenessOffset: 0, ioPriority: nil)
    case .userInitiated: Scheduling(nicenessOffset: -2, ioPriority: .bestEffort(2))
    case .userInteractive: Scheduling(nicenessOffset: -5, ioPriority: .bestEffort(0))
    }
  }
}

/// The niceness of the calling thread (Linux keeps one per thread; a child inherits its creator's).
public func currentNiceness() -> Int32 {
  errno = 0
  let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
  return errno == 0 ? value : 0
}
