@testable import OprunRuntime

/// A clock that moves only when a test moves it; timers fire in deadline order, each at its
/// own time.
final class ManualClock: RunClock {
  private(set) var time: Double = 0
  private var timers = TimerQueue()

  func now() -> Double { time }

  @discardableResult
  func schedule(after seconds: Double, _ action: @escaping () -> Void) -> TimerID {
    timers.schedule(at: time + max(0, seconds), action)
  }

  func cancelTimer(_ timer: TimerID) {
    timers.cancel(timer)
  }

  /// The deadline of the next live timer.
  func nextDeadline() -> Double? { timers.nextDeadline() }

  /// Moves to `target`, firing every timer due on the way at its deadline (timers that
  /// firing schedules included, when they fall due before `target`).
  func advance(to target: Double) {
    while let deadline = timers.nextDeadline(), deadline <= target {
      time = max(time, deadline)
      for action in timers.popDue(at: time) { action() }
    }
    time = max(time, target)
  }

  func advance(by seconds: Double) {
    advance(to: time + seconds)
  }
}
