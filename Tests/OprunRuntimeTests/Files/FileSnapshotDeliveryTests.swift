import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Snapshots taken off the run's thread and handed back on it.
@Suite struct FileSnapshotDeliveryTests {
  @Test func theSnapshotArrivesOnTheLoopWhichKeepsServingMeanwhile() throws {
    let tree = try FileTree()
    for index in 0..<50 { tree.write("src/\(index).c", "\(index)") }
    let loop = EventLoop()
    let delivery = try FileSnapshotDelivery(hasher: FileHasher(cacheFolder: nil), loop: loop)
    defer { delivery.close() }
    // Every hashing thread waits until the loop's timer fires: the snapshot can only be
    // taken if the loop goes on serving while it is asked for.
    let gate = Locked(false)
    let gateLock = ConditionLock()
    for _ in 0..<HashingPool.shared.threadCount {
      HashingPool.shared.submit { _ in
        gateLock.withLock { while !gate.withLock({ $0 }) { gateLock.wait() } }
      }
    }
    var happened: [String] = []
    let loopThread = pthread_self()
    var deliveredOnLoopThread = false
    var snapshot: FileSnapshot?
    let request = FileSetRequest(
      folder: tree.root, manifestFolder: tree.root, patterns: [try PathPattern.parse("src/").get()])
    delivery.snapshot(request) {
      happened.append("delivered")
      deliveredOnLoopThread = pthread_equal(pthread_self(), loopThread) != 0
      snapshot = $0
    }
    #expect(delivery.isWaiting)
    loop.schedule(after: 0) {
      happened.append("timer")
      gateLock.withLock {
        gate.withLock { $0 = true }
        gateLock.broadcast()
      }
    }
    runLoop(loop) { snapshot != nil }
    #expect(happened == ["timer", "delivered"])
    #expect(deliveredOnLoopThread)
    #expect(snapshot?.files.count == 50)
    #expect(!delivery.isWaiting)
  }

  @Test func aPrefetchedSnapshotAnswersTheFirstRequestForItAlone() throws {
    let tree = try FileTree()
    tree.write("src/a.c", "a")
    let hasher = FileHasher(cacheFolder: nil)
    let request = FileSetRequest(
      folder: tree.root, manifestFolder: tree.root, patterns: [try PathPattern.parse("src/").get()])
    hasher.prefetch(request)
    let loop = EventLoop()
    let delivery = try FileSnapshotDelivery(hasher: hasher, loop: loop)
    defer { delivery.close() }
    var first: FileSnapshot?
    delivery.snapshot(request) { first = $0 }
    runLoop(loop) { first != nil }
    #expect(first?.files.map(\.path) == ["src/a.c"])
    tree.write("src/b.c", "b")
    var second: FileSnapshot?
    delivery.snapshot(request) { second = $0 }
    runLoop(loop) { second != nil }
    #expect(second?.files.map(\.path) == ["src/a.c", "src/b.c"], "a second request looks again")
  }

  @Test func aSnapshotFinishingAfterCloseIsDropped() throws {
    let tree = try FileTree()
    tree.write("a.c", "a")
    let loop = EventLoop()
    let delivery = try FileSnapshotDelivery(hasher: FileHasher(cacheFolder: nil), loop: loop)
    var delivered = false
    let request = FileSetRequest(
      folder: tree.root, manifestFolder: tree.root, patterns: [try PathPattern.parse("a.c").get()])
    delivery.snapshot(request) { _ in delivered = true }
    delivery.close()
    #expect(!loop.run { delivered }, "nothing is left to wait for")
    #expect(!delivered)
  }
}
