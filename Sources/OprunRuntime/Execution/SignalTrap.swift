import COprunSystem
import Glibc

/// The one owner of oprun's signal handling.
///
/// Its C handlers only record: each signal's number goes down a non-blocking
/// self-pipe, which the event loop reads, calling `onSignal` on the loop's
/// thread. While installed, SIGPIPE is ignored (a reader of oprun's output
/// that dies must not kill it before it can clean up) and SIGCHLD is at its
/// default action (so that children can be waited for). A signal oprun was
/// started with ignored stays ignored (nohup keeps working); one it was started
/// with blocked (a parent that spawned it from a thread blocking signals) is
/// unblocked, or its handler would never run. `uninstall()` puts back every
/// action and mask it changed. One trap per process at a time.
public final class SignalTrap {
  /// What oprun reacts to: cancel (INT, TERM, HUP), suspend/resume (USR1),
  /// stop and continue (TSTP, CONT).
  public static let defaultSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGTSTP, SIGCONT]

  /// The signals whose handler was installed (those not ignored at start).
  public private(set) var trappedSignals: [Int32] = []
  private var changedSignals: [Int32] = []
  /// Trapped signals that were blocked in the installing thread, unblocked since.
  private var unblockedSignals: [Int32] = []
  private let loop: EventLoop
  private let readEnd: Int32
  private let writeEnd: Int32
  private let onSignal: (Int32) -> Void
  private var isInstalled = true

  /// Installs the handlers for `signals`; `onSignal` runs on `loop`'s thread.
  public init(loop: EventLoop, signals: [Int32] = defaultSignals, onSignal: @escaping (Int32) -> Void)
    throws(SystemError)
  {
    var fds: [Int32] = [-1, -1]
    guard oprun_pipe_cloexec(&fds, 1) == 0 else { throw SystemError("pipe2") }
    // A handler must never block on a full pipe.
    _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
    readEnd = fds[0]
    writeEnd = fds[1]
    self.loop = loop
    self.onSignal = onSignal
    guard oprun_signal_trap_claim(writeEnd) == 0 else {
      let error = SystemError("signal trap (one is already installed)")
      close(readEnd)
      close(writeEnd)
      throw error
    }
    loop.watch(fd: readEnd) { [weak self] in self?.deliverRecorded() }
    do throws(SystemError) { try installHandlers(signals) } catch {
      uninstall()
      throw error
    }
  }

  deinit { uninstall() }

  /// Puts back every action this trap changed and stops listening.
  public func uninstall() {
    guard isInstalled else { return }
    isInstalled = false
    for signal in changedSignals.reversed() { oprun_signal_trap_restore(signal) }
    changedSignals = []
    trappedSignals = []
    for signal in unblockedSignals { oprun_signal_block(signal) }
    unblockedSignals = []
    oprun_signal_trap_release()
    loop.unwatch(fd: readEnd)
    close(readEnd)
    close(writeEnd)
  }

  private func installHandlers(_ signals: [Int32]) throws(SystemError) {
    try change(SIGPIPE, "ignore SIGPIPE") { oprun_signal_trap_ignore($0) }
    try change(SIGCHLD, "default SIGCHLD") { oprun_signal_trap_default($0) }
    for signal in signals {
      let result = oprun_signal_trap_install(signal)
      guard result >= 0 else { throw SystemError("sigaction \(signal)") }
      if result == 0 {
        changedSignals.append(signal)
        trappedSignals.append(signal)
        if oprun_signal_is_blocked(signal) == 1 {
          oprun_signal_unblock(signal)
          unblockedSignals.append(signal)
        }
      }
    }
  }

  private func change(_ signal: Int32, _ what: String, _ apply: (Int32) -> Int32) throws(SystemError) {
    guard apply(signal) == 0 else { throw SystemError(what) }
    changedSignals.append(signal)
  }

  /// Hands `onSignal` every signal recorded and not yet read, now rather than on the
  /// loop's next turn: for a caller about to stop running the loop.
  func deliverRecorded() {
    var bytes = [UInt8](repeating: 0, count: 64)
    while true {
      let count = bytes.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      for byte in bytes[0..<count] { onSignal(Int32(byte)) }
    }
  }
}
