import COprunSystem
import Glibc

/// A Linux I/O scheduling priority, as `ioprio_get` and `ionice` report it.
public struct IOPriority: Hashable, Sendable, CustomStringConvertible {
  public enum Class: Int32, Sendable {
    /// Never set: the kernel schedules the process best-effort at (niceness + 20) / 5.
    case none = 0
    case realtime = 1
    case bestEffort = 2
    case idle = 3
  }

  public var ioClass: Class
  /// 0 (first served) to 7; meaningful for realtime and best-effort.
  public var level: Int32

  public init(_ ioClass: Class, level: Int32 = 0) {
    self.ioClass = ioClass
    self.level = level
  }

  public static let idle = IOPriority(.idle)

  public static func bestEffort(_ level: Int32) -> IOPriority { IOPriority(.bestEffort, level: level) }

  /// The value `ioprio_set` takes: class << 13 | level.
  public var rawValue: Int32 { oprun_ioprio_value(ioClass.rawValue, level) }

  public init?(rawValue: Int32) {
    guard let ioClass = Class(rawValue: rawValue >> 13) else { return nil }
    self.init(ioClass, level: rawValue & 0x1FFF)
  }

  /// The I/O priority of a process, or nil when it cannot be read (no such process).
  public static func of(pid: Int32) -> IOPriority? {
    let value = oprun_ioprio_get(pid)
    return value < 0 ? nil : IOPriority(rawValue: value)
  }

  public var description: String {
    switch ioClass {
    case .none: "none"
    case .realtime: "realtime \(level)"
    case .bestEffort: "best-effort \(level)"
    case .idle: "idle"
    }
  }
}
