import COprunSystem
import Foundation
import Glibc
import Testing

@testable import OprunRuntime

/// The pool's threads never take a signal sent to the process: a job's SIGCHLD, a Ctrl-C or
/// a SIGTERM goes to the loop's thread, and an idle pool thread is never woken to discard one.
@Suite struct HashingPoolTests {
  private static let signals = [SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGTSTP, SIGCONT]

  @Test func aPoolThreadBlocksEverySignalEvenWhenStartedByAThreadThatBlocksNone() {
    let pool = HashingPool(threadCount: 1)
    let blocked = Locked<[Int32: Bool]>([:])
    let done = ConditionLock()
    let finished = Locked(false)
    // A pool thread starts with the mask of the thread that submits: here, nothing blocked.
    let submitter = Thread {
      for signal in Self.signals { oprun_signal_unblock(signal) }
      pool.submit { _ in
        for signal in Self.signals { blocked.withLock { $0[signal] = oprun_signal_is_blocked(signal) == 1 } }
        done.withLock {
          finished.withLock { $0 = true }
          done.broadcast()
        }
      }
    }
    submitter.start()
    done.withLock { while !finished.withLock({ $0 }) { done.wait() } }
    let unblocked = blocked.withLock { $0.filter { !$0.value }.keys.sorted() }
    #expect(blocked.withLock { $0.count } == Self.signals.count)
    #expect(unblocked.isEmpty, "signals a pool thread would be woken for: \(unblocked)")
  }
}
