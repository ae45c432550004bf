import OprunCore

/// Hands every event of a run to its observers, in order: the one stream every view reads.
///
/// One delivery at a time: every observer sees an event before any observer sees the next
/// one. Only the run driver publishes, and it never does so while a delivery is under way
/// (it queues what an observer causes, see ``RunDriver/apply(_:)``); a publish during a
/// delivery is a bug, caught in debug builds.
final class EventBus {
  private var observers: [any RunObserver] = []
  private var isDelivering = false

  /// Observers see events in the order they were added.
  func add(_ observer: any RunObserver) {
    observers.append(observer)
  }

  func deliver(_ event: RunEvent) {
    assert(!isDelivering, "an event was published while another was being delivered")
    isDelivering = true
    defer { isDelivering = false }
    for observer in observers { observer.observe(event) }
  }
}
