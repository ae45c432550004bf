import Synchronization

/// What the cache's threads are doing for a run that must end before the run does: a
/// restore or a store leaves temporary files beside outputs or in the cache until it ends.
/// When the run ends, ``stopAndWait()`` makes every such piece of work give up at its next
/// write (removing what it wrote) and waits for it.
final class CacheWork: Sendable {
  private let lock = ConditionLock()
  /// Pieces of work begun and not ended; guarded by `lock`.
  private nonisolated(unsafe) var running = 0
  private let stopping = Atomic<Bool>(false)

  /// Whether work should give up now.
  var isStopping: Bool { stopping.load(ordering: .relaxed) }

  func begin() { lock.withLock { running += 1 } }

  func end() {
    lock.withLock {
      running -= 1
      if running == 0 { lock.broadcast() }
    }
  }

  /// Tells every piece of work under way to give up, and waits until each has ended.
  func stopAndWait() {
    stopping.store(true, ordering: .relaxed)
    lock.withLock {
      while running > 0 { lock.wait() }
    }
  }
}
