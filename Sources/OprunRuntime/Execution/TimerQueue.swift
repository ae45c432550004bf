import OprunCore

/// Identifies a scheduled timer, to cancel it.
public struct TimerID: Hashable, Sendable {
  let value: UInt64
}

/// Timers ordered by deadline, then by the order they were scheduled.
///
/// A cancelled timer leaves its heap entry behind; it is skipped when it
/// reaches the top (cancelling is O(1), the heap never holds more entries than
/// timers ever scheduled and not yet popped).
struct TimerQueue {
  private struct Entry: Comparable {
    var deadline: Double
    var id: UInt64

    static func < (a: Entry, b: Entry) -> Bool {
      (a.deadline, a.id) < (b.deadline, b.id)
    }
  }

  private var heap = MinHeap<Entry>()
  /// Invariant: holds exactly the timers scheduled and neither fired nor cancelled.
  private var actions: [UInt64: () -> Void] = [:]
  private var nextID: UInt64 = 0

  var isEmpty: Bool { actions.isEmpty }

  mutating func schedule(at deadline: Double, _ action: @escaping () -> Void) -> TimerID {
    nextID += 1
    actions[nextID] = action
    heap.push(Entry(deadline: deadline, id: nextID))
    return TimerID(value: nextID)
  }

  mutating func cancel(_ timer: TimerID) {
    actions[timer.value] = nil
  }

  /// The earliest deadline of a live timer.
  mutating func nextDeadline() -> Double? {
    dropCancelledTop()
    return heap.min?.deadline
  }

  /// Removes and returns the actions of every live timer due at `now`, earliest first.
  mutating func popDue(at now: Double) -> [() -> Void] {
    var due: [() -> Void] = []
    while let top = heap.min, top.deadline <= now {
      heap.popMin()
      if let action = actions.removeValue(forKey: top.id) { due.append(action) }
    }
    return due
  }

  private mutating func dropCancelledTop() {
    while let top = heap.min, actions[top.id] == nil { heap.popMin() }
  }
}
