/// A binary min-heap: ``popMin()`` hands out the least element first.
///
/// Elements that compare equal come out in no promised order: a caller that needs one puts
/// it in the element's own order (a sequence number, as ninja's `EdgePriorityLess` ends in
/// the edge id). Comparisons go through `Element`'s `<` alone, with no closure or existential
/// in the way, so each element type gets a specialised copy; `@inlinable` extends that to
/// the modules that use it.
public struct MinHeap<Element: Comparable> {
  /// Invariant: no element is less than its parent (`storage[(i - 1) / 2]`).
  @usableFromInline var storage: [Element] = []

  @inlinable public init() {}

  @inlinable public var count: Int { storage.count }

  @inlinable public var isEmpty: Bool { storage.isEmpty }

  /// The least element, if any.
  @inlinable public var min: Element? { storage.first }

  /// Every element, in storage order (not sorted): for checks that visit them all.
  @inlinable public var unordered: [Element] { storage }

  @inlinable public mutating func push(_ element: Element) {
    storage.append(element)
    siftUp(from: storage.count - 1)
  }

  /// Removes and returns the least element, if any.
  @inlinable @discardableResult
  public mutating func popMin() -> Element? {
    guard let last = storage.popLast() else { return nil }
    guard !storage.isEmpty else { return last }
    let least = storage[0]
    storage[0] = last
    siftDown(from: 0)
    return least
  }

  /// Moves the element at `start` up to where no parent is greater: parents move down into
  /// the hole it leaves, and it is written once, at the end.
  @inlinable mutating func siftUp(from start: Int) {
    var child = start
    let moving = storage[child]
    while child > 0 {
      let parent = (child - 1) / 2
      guard moving < storage[parent] else { break }
      storage[child] = storage[parent]
      child = parent
    }
    storage[child] = moving
  }

  /// Moves the element at `start` down to where no child is less, as ``siftUp(from:)`` does upwards.
  @inlinable mutating func siftDown(from start: Int) {
    var parent = start
    let moving = storage[parent]
    let count = storage.count
    while true {
      var least = 2 * parent + 1
      guard least < count else { break }
      let right = least + 1
      if right < count, storage[right] < storage[least] { least = right }
      guard storage[least] < moving else { break }
      storage[parent] = storage[least]
      parent = least
    }
    storage[parent] = moving
  }
}
