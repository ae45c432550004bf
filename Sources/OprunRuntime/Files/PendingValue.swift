/// A value made by one task on a pool thread, waited for where it is first needed.
///
/// Tasks start in the order they are submitted, so a task submitted later that waits for
/// this value waits for one already running, never for a place in the queue.
final class PendingValue<Value: Sendable>: @unchecked Sendable {
  private let lock = ConditionLock()
  // Guarded by `lock`.
  private var made: Value?

  /// Submits `make` to `pool`.
  init(on pool: HashingPool, _ make: @escaping @Sendable () -> Value) {
    pool.submit { _ in
      let value = make()
      self.lock.withLock {
        self.made = value
        self.lock.broadcast()
      }
    }
  }

  /// The value, once made.
  var value: Value {
    lock.withLock {
      while made == nil { lock.wait() }
      return made!
    }
  }
}
