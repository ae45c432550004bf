extension MinHeap {
  /// The first index whose element is less than its parent; nil when the heap order holds.
  /// O(count): for tests and invariant checks, never on a hot path.
  public func firstOrderViolation() -> Int? {
    storage.indices.dropFirst().first { storage[$0] < storage[($0 - 1) / 2] }
  }

  /// In debug builds, traps if the heap order does not hold.
  public func checkInvariants() {
    #if DEBUG
      if let index = firstOrderViolation() { assertionFailure("heap out of order at \(index)") }
    #endif
  }
}
