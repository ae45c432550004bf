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
  private struct Entry {
    var deadline: Double
    var id: UInt64

    func precedes(_ other: Entry) -> Bool {
      (deadline, id) < (other.deadline, other.id)
    }
  }

  private var heap: [Entry] = []
  /// Invariant: holds exactly the timers scheduled and neither fired nor cancelled.
  private var actions: [UInt64: () -> Void] = [:]
  private var nextID: UInt64 = 0

  var isEmpty: Bool { actions.isEmpty }

  mutating func schedule(at deadline: Double, _ action: @escaping () -> Void) -> TimerID {
    nextID += 1
    actions[nextID] = action
    push(Entry(deadline: deadline, id: nextID))
    return TimerID(value: nextID)
  }

  mutating func cancel(_ timer: TimerID) {
    actions[timer.value] = nil
  }

  /// The earliest deadline of a live timer.
  mutating func nextDeadline() -> Double? {
    dropCancelledTop()
    return heap.first?.deadline
  }

  /// Removes and returns the actions of every live timer due at `now`, earliest first.
  mutating func popDue(at now: Double) -> [() -> Void] {
    var due: [() -> Void] = []
    while let top = heap.first, top.deadline <= now {
      popTop()
      if let action = actions.removeValue(forKey: top.id) { due.append(action) }
    }
    return due
  }

  private mutating func dropCancelledTop() {
    while let top = heap.first, actions[top.id] == nil { popTop() }
  }

  private mutating func push(_ entry: Entry) {
    heap.append(entry)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].precedes(heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func popTop() {
    heap.swapAt(0, heap.count - 1)
    heap.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var first = parent
      if left < heap.count, heap[left].precedes(heap[first]) { first = left }
      if right < heap.count, heap[right].precedes(heap[first]) { first = right }
      if first == parent { return }
      heap.swapAt(parent, first)
      parent = first
    }
  }
}
