import COprunSystem
import Glibc
import Synchronization

/// Threads that read and hash files, so that no caller's thread waits on a disk alone and a
/// request with many files uses every CPU. Each thread owns one read buffer for its life.
final class HashingPool: @unchecked Sendable {
  /// One task: given the running thread's read buffer.
  typealias Task = @Sendable (UnsafeMutableRawBufferPointer) -> Void

  /// The process's pool: as many threads as CPUs, at least two. Its threads wait for work
  /// for as long as the process lives.
  static let shared = HashingPool(threadCount: max(CPUCount.available, 2))

  /// Bytes each read asks for: large reads keep the hashing, not the system calls, the cost.
  static let bufferSize = 1 << 20

  /// The most threads it starts.
  let threadCount: Int
  private let lock = ConditionLock()
  // Guarded by `lock`.
  private var tasks: [Task] = []
  private var taskHead = 0
  /// Threads started (or being started), and those of them waiting for a task.
  private var startedThreads = 0
  private var idleThreads = 0

  /// A pool of at most `threadCount` threads, each started when a task finds none idle: a run
  /// that hashes little, or looks up one cache entry, does not pay for threads it never uses.
  init(threadCount: Int) {
    self.threadCount = threadCount
  }

  /// Runs `task` on one of the pool's threads, in submission order.
  func submit(_ task: @escaping Task) {
    let startsThread = lock.withLock {
      tasks.append(task)
      lock.broadcast()
      guard tasks.count - taskHead > idleThreads, startedThreads < threadCount else { return false }
      startedThreads += 1
      return true
    }
    if startsThread { startThread() }
  }

  /// Runs `body(i, buffer)` for every `i` in `0..<count`, spread over the pool's threads and
  /// the calling one (which reads into `callerBuffer`); returns once all are done. The caller
  /// takes part, so that a pool thread may call it without waiting on its own pool.
  func forEach(
    _ count: Int, callerBuffer: UnsafeMutableRawBufferPointer,
    _ body: @escaping @Sendable (Int, UnsafeMutableRawBufferPointer) -> Void
  ) {
    guard count > 0 else { return }
    let batch = Batch(count: count, body: body)
    for _ in 0..<min(threadCount, count - 1) { submit { batch.work(buffer: $0) } }
    batch.work(buffer: callerBuffer)
    batch.waitUntilDone()
  }

  private func startThread() {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(self).toOpaque()
    let started = pthread_create(
      &thread, nil,
      { context in Unmanaged<HashingPool>.fromOpaque(context!).takeRetainedValue().serve() }, context)
    if started == 0 {
      pthread_detach(thread)
    } else {
      Unmanaged<HashingPool>.fromOpaque(context).release()
      lock.withLock { startedThreads -= 1 }
    }
  }

  /// A thread's life: take the next task, run it, forever.
  private func serve() -> Never {
    // A signal sent to the process (a job's SIGCHLD while the loop's thread blocks signals
    // around `vfork`, a Ctrl-C) would otherwise wake this idle thread, to be discarded or
    // handled here: at 10,000 jobs, a wake-up on some CPU for a quarter of them. The loop's
    // thread takes them all once it unblocks them.
    oprun_block_all_signals()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 64)
    while true {
      let task = lock.withLock {
        while taskHead == tasks.count {
          idleThreads += 1
          lock.wait()
          idleThreads -= 1
        }
        let task = tasks[taskHead]
        taskHead += 1
        if taskHead == tasks.count {
          tasks.removeAll(keepingCapacity: true)
          taskHead = 0
        }
        return task
      }
      task(buffer)
    }
  }

  /// Items handed out one at a time to whichever thread asks next, so a thread slowed by a
  /// large file leaves the rest to the others.
  private final class Batch: @unchecked Sendable {
    let count: Int
    let body: @Sendable (Int, UnsafeMutableRawBufferPointer) -> Void
    private let next = Atomic<Int>(0)
    private let lock = ConditionLock()
    /// Items done; guarded by `lock`.
    private var finished = 0

    init(count: Int, body: @escaping @Sendable (Int, UnsafeMutableRawBufferPointer) -> Void) {
      self.count = count
      self.body = body
    }

    func work(buffer: UnsafeMutableRawBufferPointer) {
      var done = 0
      while true {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < count else { break }
        body(index, buffer)
        done += 1
      }
      guard done > 0 else { return }
      lock.withLock {
        finished += done
        if finished == count { lock.broadcast() }
      }
    }

    func waitUntilDone() {
      lock.withLock {
        while finished < count { lock.wait() }
      }
    }
  }
}

/// A buffer threads fill at once, each its own indices, read once all are done.
struct DisjointSlices<Element>: @unchecked Sendable {
  private let buffer: UnsafeMutableBufferPointer<Element>

  init(_ buffer: UnsafeMutableBufferPointer<Element>) { self.buffer = buffer }

  func initialize(_ index: Int, to element: Element) { (buffer.baseAddress! + index).initialize(to: element) }
}

extension Array {
  /// An array of `count` elements that `body` initializes in place, every one of them (from
  /// several threads, through ``DisjointSlices``). Empty without calling `body` when `count` is
  /// 0: the standard library's in-place initializer then writes the count of the one empty
  /// array all threads share, which two threads doing so at once makes a data race.
  init(initializingInPlace count: Int, _ body: (UnsafeMutableBufferPointer<Element>) -> Void) {
    guard count > 0 else {
      self = []
      return
    }
    self.init(unsafeUninitializedCapacity: count) { elements, initialized in
      body(elements)
      initialized = count
    }
  }
}
