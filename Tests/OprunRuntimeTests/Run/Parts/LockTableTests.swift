import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// The driver's table of locks between runs: a lock held from its taking to its release,
/// jobs past the run's limit waiting for room in order, a cancelled waiter passed over.
@Suite struct LockTableTests {
  /// A table over `count` jobs on one queue of one slot (a limit of 65 locks), its lock files
  /// in a fresh folder.
  private func table(jobs count: Int) throws -> (LockTable, folder: String) {
    let folder = try makeTemporaryDirectory()
    let graph = makeGraph(
      jobs: (0..<count).map { "job\($0)" }, queues: [QueueNode(name: "ci", maxConcurrent: 1)])
    let locks = JobLocks(manifestPath: folder + "/jobs.yaml", lookedAt: MonotonicClock.now())
    return (LockTable(locks: locks, graph: graph), folder)
  }

  @Test func pastItsLimitAJobWaitsForRoomAndIsTriedInOrderOnceALockIsReleased() throws {
    var (table, folder) = try table(jobs: 70)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    #expect(table.limit == 65)
    for job in 0..<65 { #expect(table.take(job, name: "job\(job)") == .taken(changedSince: false)) }
    #expect(table.take(65, name: "job65") == .waitsForRoom)
    #expect(table.take(66, name: "job66") == .waitsForRoom)
    #expect(table.take(67, name: "job67") == .waitsForRoom)
    #expect(table.nextWithRoom() == nil, "no room yet")
    table.stopWaiting(65)  // cancelled: passed over
    table.release(3)
    #expect(!table.holds(3) && table.heldCount == 64)
    #expect(table.nextWithRoom() == 66)
    #expect(table.take(66, name: "job66") == .taken(changedSince: false))
    #expect(table.nextWithRoom() == nil, "full again")
    table.release(4)
    #expect(table.nextWithRoom() == 67)
    for job in 0..<67 { table.release(job) }
    #expect(table.heldCount == 0)
  }

  @Test func aJobWhoseLockAnotherHolderHasWaitsAndIsAnnouncedOnce() throws {
    var (table, folder) = try table(jobs: 2)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // Another holder of job0's lock: a second table, as another run would be.
    var other = LockTable(
      locks: JobLocks(manifestPath: folder + "/jobs.yaml", lookedAt: MonotonicClock.now()),
      graph: makeGraph(jobs: ["job0", "job1"]))
    #expect(other.take(0, name: "job0") == .taken(changedSince: false))
    #expect(other.markRunning(0) == nil)
    #expect(table.take(0, name: "job0") == .waits(announce: true, pid: getpid()))
    #expect(table.waitingForOtherRuns == 1)
    #expect(table.takeWaiting() == [0])
    #expect(table.take(0, name: "job0") == .waits(announce: false, pid: getpid()), "said once")
    other.release(0)
    #expect(table.takeWaiting() == [0])
    #expect(table.take(0, name: "job0") == .taken(changedSince: true), "the other holder may have changed it")
    table.stopWaiting(1)
    #expect(table.waitingForOtherRuns == 0)
    table.release(0)
  }

  @Test func waitingJobsAreTriedAfterTwiceTheLastWaitUpToASecondAndSoonAgainOnceALockIsTaken() throws {
    var (table, folder) = try table(jobs: 2)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    #expect((0..<8).map { _ in table.nextRetryDelay() } == [0.03, 0.06, 0.12, 0.24, 0.48, 0.96, 1, 1])
    #expect(table.take(0, name: "job0") == .taken(changedSince: false))
    #expect(table.nextRetryDelay() == 0.03)
    table.release(0)
  }

  @Test func aWaitingJobsLockFileIsNamedOnceHoweverOftenItIsTried() throws {
    /// Counts the lock files named: each is a SHA-256.
    final class CountingLocks: JobLocks {
      var named = 0
      override func file(of job: String) -> String {
        named += 1
        return super.file(of: job)
      }
    }
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let other = JobLocks(manifestPath: folder + "/jobs.yaml", lookedAt: MonotonicClock.now())
    guard case .taken(let held, _) = other.take("job0") else {
      Issue.record("job0's lock is free")
      return
    }
    let locks = CountingLocks(manifestPath: folder + "/jobs.yaml", lookedAt: MonotonicClock.now())
    var table = LockTable(locks: locks, graph: makeGraph(jobs: ["job0"]))
    for attempt in 0..<5 {
      #expect(table.take(0, name: "job0") == .waits(announce: attempt == 0, pid: nil))
      #expect(table.takeWaiting() == [0])
    }
    held.release()
    #expect(table.take(0, name: "job0") == .taken(changedSince: false))
    #expect(locks.named == 1)
    table.release(0)
  }
}
