/// A value made by one task on a pool thread, waited for where it is first needed.
///
/// Tasks start in the order they are submitted, so a task submitted later that waits for
/// this value waits for one already running, never for a place in the queue.
final class PendingValue<Value: Sendable>: @unchecked Sendable {
  private let lock = ConditionLock()
  // Guarded by `lock`.
  private var made: Value?
  private var waiting: [@Sendable (Value) -> Void] = []

  /// Submits `make` to `pool`.
  init(on pool: HashingPool, _ make: @escaping @Sendable () -> Value) {
    pool.submit { _ in
      let value = make()
      let waiting = self.lock.withLock {
        self.made = value
        self.lock.broadcast()
        return self.waiting
      }
      for body in waiting { body(value) }
    }
  }

  /// The value, once made.
  var value: Value {
    lock.withLock {
      while made == nil { lock.wait() }
      return made!
    }
  }

  /// Calls `body` with the value once it is made: at once, on this thread, when it is;
  /// else on the thread that makes it. Nobody waits meanwhile.
  func whenMade(_ body: @escaping @Sendable (Value) -> Void) {
    let already: Value? = lock.withLock {
      if made == nil { waiting.append(body) }
      return made
    }
    if let already { body(already) }
  }
}
