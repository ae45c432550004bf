import OprunCore

/// Hands every event of a run to its observers, in order: the one stream every view reads.
///
/// The queue engine publishes into it as its observer; the executor publishes the
/// runtime's own events (output, completions, warnings, start and end) with `publish`.
final class EventBus: RunObserver {
  private var observers: [any RunObserver] = []
  private let clock: () -> Double

  init(clock: @escaping () -> Double) {
    self.clock = clock
  }

  /// Observers see events in the order they were added.
  func add(_ observer: any RunObserver) {
    observers.append(observer)
  }

  func observe(_ event: RunEvent) {
    for observer in observers { observer.observe(event) }
  }

  /// Stamps `kind` with the run's clock and hands it on.
  func publish(_ kind: RunEvent.Kind) {
    observe(RunEvent(time: clock(), kind))
  }
}
