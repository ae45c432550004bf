import Glibc

/// Seconds on CLOCK_MONOTONIC: never jumps with the wall clock, so durations,
/// timeouts and grace periods measured on it are honest.
public enum MonotonicClock {
  /// The current reading, in seconds since an arbitrary fixed point.
  public static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
  }
}
