/// The driver's time and timers: the event loop in a real run, a manual clock in tests.
public protocol RunClock: AnyObject {
  /// Seconds on a clock that never jumps.
  func now() -> Double

  /// Runs `action` once, `seconds` from now, on the driver's thread.
  @discardableResult
  func schedule(after seconds: Double, _ action: @escaping () -> Void) -> TimerID

  /// Cancels a timer that has not fired yet; does nothing otherwise.
  func cancelTimer(_ timer: TimerID)
}

extension EventLoop: RunClock {}
