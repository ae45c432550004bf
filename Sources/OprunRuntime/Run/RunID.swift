import Glibc

/// A run's id: its start as UTC `YYYYMMDDTHHMMSS`, a dash and oprun's pid, then, for a run
/// that keeps a journal, a dash and its journal's sequence number (SPEC §9): two runs with
/// the same pid in the same second (each pid 1 of its own container, say) still differ.
enum RunID {
  static func make(sequence: Int? = nil) -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
    let date = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
    let clock = "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    return "\(date)T\(clock)-\(getpid())" + (sequence.map { "-\($0)" } ?? "")
  }
}
