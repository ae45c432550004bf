import Glibc

/// How the human views write times and durations.
public enum TimeText {
  /// A time since the run started, in seconds with millisecond precision: `0.003s`,
  /// `83.120s`. One unit for the whole timeline keeps lines sortable and greppable.
  public static func timestamp(_ seconds: Double) -> String {
    DecimalText.string(max(asRecorded(seconds), 0), fractionDigits: 3) + "s"
  }

  /// A duration for reading: `0.30s`, `12.41s`, `2m03s`, `1h02m03s`.
  public static func duration(_ seconds: Double) -> String {
    let seconds = seconds.isFinite ? max(asRecorded(seconds), 0) : 0
    // Below this, two decimals would still read less than 60.00s.
    guard seconds >= 59.995 else {
      return DecimalText.string(seconds, fractionDigits: 2) + "s"
    }
    let whole = Int(seconds.rounded())
    let hours = whole / 3600
    let minutes = whole / 60 % 60
    let rest = whole % 60
    let minutesAndSeconds = "\(minutes)m" + twoDigits(rest) + "s"
    return hours == 0 ? minutesAndSeconds : "\(hours)h" + twoDigits(minutes) + "m" + twoDigits(rest) + "s"
  }

  /// `seconds` as the event stream records a time or a duration: to the microsecond, the
  /// number its text reads back as. Shown from this, a time is the same whether a view has it
  /// from the run itself or reads it back from the stream (`oprun ctl watch`): rounded once,
  /// never twice.
  static func asRecorded(_ seconds: Double) -> Double {
    guard seconds.isFinite, seconds.magnitude < 9e12 else { return seconds }
    return (seconds * 1e6).rounded() / 1e6
  }

  /// A Unix time as local `YYYY-MM-DD HH:MM:SS`; nil for a time that is none.
  public static func localTime(_ seconds: Double) -> String? {
    guard seconds.isFinite, abs(seconds) < 1e12 else { return nil }
    var time = time_t(seconds)
    var parts = tm()
    guard localtime_r(&time, &parts) != nil else { return nil }
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private static func twoDigits(_ value: Int) -> String {
    value < 10 ? "0\(value)" : "\(value)"
  }
}
