import Glibc

/// A pthread mutex with its condition variable, for the few values threads share here.
/// (A pthread mutex rather than `Synchronization.Mutex`: ThreadSanitizer understands it.)
final class ConditionLock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  func withLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// Waits for `broadcast()`; call it holding the lock, inside `withLock`, in a loop on
  /// the condition awaited (wake-ups may be spurious).
  func wait() { pthread_cond_wait(condition, mutex) }

  func broadcast() { pthread_cond_broadcast(condition) }

  /// `body` run with the lock let go; call it holding the lock, inside `withLock`.
  func unlocked<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_unlock(mutex)
    defer { pthread_mutex_lock(mutex) }
    return try body()
  }
}
