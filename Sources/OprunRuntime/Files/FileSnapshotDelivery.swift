import COprunSystem
import Glibc
import OprunCore

/// Snapshots taken off the event loop's thread and delivered on it: the run asks, goes on
/// serving its jobs, signals and control requests, and gets each snapshot in a callback.
public final class FileSnapshotDelivery {
  private let hasher: FileHasher
  private let loop: EventLoop
  private let mailbox: Mailbox
  private let wakeUpReader: Int32
  private var waiting: [UInt64: (FileSnapshot) -> Void] = [:]
  private var nextTicket: UInt64 = 0

  /// Delivery on `loop`, which must be run on the calling thread.
  public init(hasher: FileHasher, loop: EventLoop) throws(SystemError) {
    var descriptors: [Int32] = [-1, -1]
    guard oprun_pipe_cloexec(&descriptors, 1) == 0 else { throw SystemError("pipe2") }
    // A full pipe already wakes the loop: a completion never waits for room in it.
    _ = fcntl(descriptors[1], F_SETFL, fcntl(descriptors[1], F_GETFL) | O_NONBLOCK)
    self.hasher = hasher
    self.loop = loop
    wakeUpReader = descriptors[0]
    mailbox = Mailbox(wakeUpWriter: descriptors[1])
    loop.watch(fd: wakeUpReader) { [weak self] in self?.deliverArrived() }
  }

  /// Whether some snapshot asked for has not been delivered yet.
  public var isWaiting: Bool { !waiting.isEmpty }

  /// Takes the snapshot of `request` on the hashing threads, then calls `deliver` with it
  /// on the loop's thread, from `run(until:)`.
  public func snapshot(_ request: FileSetRequest, then deliver: @escaping (FileSnapshot) -> Void) {
    nextTicket += 1
    let ticket = nextTicket
    waiting[ticket] = deliver
    let hasher = hasher
    let mailbox = mailbox
    if let pending = hasher.claimPrefetched(request) {
      pending.whenMade { mailbox.post(ticket, $0) }
      return
    }
    hasher.pool.submit { buffer in
      mailbox.post(ticket, hasher.snapshot(request, buffer: buffer))
    }
  }

  /// Drops the snapshot of `request` begun before the run asked for it, if any.
  public func forgetEarlierLook(at request: FileSetRequest) {
    _ = hasher.claimPrefetched(request)
  }

  /// Stops watching the loop; snapshots still under way are dropped when they finish.
  public func close() {
    loop.unwatch(fd: wakeUpReader)
    Glibc.close(wakeUpReader)
    mailbox.close()
    waiting.removeAll()
  }

  private func deliverArrived() {
    var drain = [UInt8](repeating: 0, count: 256)
    while read(wakeUpReader, &drain, drain.count) > 0 {}
    for (ticket, snapshot) in mailbox.takeAll() {
      waiting.removeValue(forKey: ticket)?(snapshot)
    }
  }

  /// Finished snapshots on their way from the hashing threads to the loop.
  private final class Mailbox: Sendable {
    private let state: Locked<(arrived: [(UInt64, FileSnapshot)], wakeUpWriter: Int32)>

    init(wakeUpWriter: Int32) { state = Locked(([], wakeUpWriter)) }

    func post(_ ticket: UInt64, _ snapshot: FileSnapshot) {
      state.withLock { state in
        guard state.wakeUpWriter >= 0 else { return }
        state.arrived.append((ticket, snapshot))
        var byte: UInt8 = 1
        _ = write(state.wakeUpWriter, &byte, 1)
      }
    }

    func takeAll() -> [(UInt64, FileSnapshot)] {
      state.withLock { state in
        defer { state.arrived.removeAll() }
        return state.arrived
      }
    }

    func close() {
      state.withLock { state in
        if state.wakeUpWriter >= 0 { Glibc.close(state.wakeUpWriter) }
        state.wakeUpWriter = -1
      }
    }
  }
}
