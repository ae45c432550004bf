import Glibc
import OprunCore

extension Termination {
  /// Decodes a `waitpid` status of a process that has ended (not stopped).
  init(waitStatus status: Int32) {
    let signal = status & 0x7F
    self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
  }
}

extension ResourceUsage {
  /// What `wait4` says a reaped process used: its user and system time, and its peak
  /// resident memory (`ru_maxrss`, in KiB on Linux) — the largest of the process and the
  /// descendants it waited for.
  init(_ accounting: rusage) {
    let cpu = Self.seconds(accounting.ru_utime) + Self.seconds(accounting.ru_stime)
    self.init(cpuSeconds: cpu, peakMemory: Int(accounting.ru_maxrss) * 1024, source: .process)
  }

  private static func seconds(_ time: timeval) -> Double {
    Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
  }
}
