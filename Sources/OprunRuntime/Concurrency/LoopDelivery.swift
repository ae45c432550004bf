import COprunSystem
import Glibc

/// Values made on other threads, handed back on an event loop's thread: the caller asks,
/// goes on serving its loop, and gets each value in the callback it gave, later — never from
/// inside the call that asked. A descriptor wakes the loop, as for file snapshots.
final class LoopDelivery<Value: Sendable> {
  private let loop: EventLoop
  private let mailbox: Mailbox
  private let wakeUpReader: Int32
  private var waiting: [UInt64: (Value) -> Void] = [:]
  private var nextTicket: UInt64 = 0

  /// Delivery on `loop`, which must be run on the calling thread.
  init(loop: EventLoop) throws(SystemError) {
    var descriptors: [Int32] = [-1, -1]
    guard oprun_pipe_cloexec(&descriptors, 1) == 0 else { throw SystemError("pipe2") }
    // A full pipe already wakes the loop: a poster never waits for room in it.
    _ = fcntl(descriptors[1], F_SETFL, fcntl(descriptors[1], F_GETFL) | O_NONBLOCK)
    self.loop = loop
    wakeUpReader = descriptors[0]
    mailbox = Mailbox(wakeUpWriter: descriptors[1])
    loop.watch(fd: wakeUpReader) { [weak self] in self?.deliverArrived() }
  }

  /// Whether some value asked for has not been delivered yet.
  var isWaiting: Bool { !waiting.isEmpty }

  /// A ticket for one value to come: `post` it from any thread, and `deliver` is called
  /// with it on the loop's thread.
  func expect(_ deliver: @escaping (Value) -> Void) -> Ticket {
    nextTicket += 1
    waiting[nextTicket] = deliver
    return Ticket(number: nextTicket, mailbox: mailbox)
  }

  /// Stops watching the loop; values still to come are dropped.
  func close() {
    loop.unwatch(fd: wakeUpReader)
    Glibc.close(wakeUpReader)
    mailbox.close()
    waiting.removeAll()
  }

  private func deliverArrived() {
    var drain = [UInt8](repeating: 0, count: 256)
    while read(wakeUpReader, &drain, drain.count) > 0 {}
    for (ticket, value) in mailbox.takeAll() {
      waiting.removeValue(forKey: ticket)?(value)
    }
  }

  /// Where one value is to be posted, from any thread.
  struct Ticket: Sendable {
    fileprivate let number: UInt64
    fileprivate let mailbox: Mailbox

    func post(_ value: Value) { mailbox.post(number, value) }
  }

  fileprivate final class Mailbox: Sendable {
    private let state: Locked<(arrived: [(UInt64, Value)], wakeUpWriter: Int32)>

    init(wakeUpWriter: Int32) { state = Locked(([], wakeUpWriter)) }

    func post(_ ticket: UInt64, _ value: Value) {
      state.withLock { state in
        guard state.wakeUpWriter >= 0 else { return }
        state.arrived.append((ticket, value))
        var byte: UInt8 = 1
        _ = write(state.wakeUpWriter, &byte, 1)
      }
    }

    func takeAll() -> [(UInt64, Value)] {
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
