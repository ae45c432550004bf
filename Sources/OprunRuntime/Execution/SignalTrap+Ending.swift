import COprunSystem
import Glibc
import OprunCore

extension SignalTrap {
  /// Stops oprun as Ctrl-Z would (SIGTSTP at its default action); returns once
  /// oprun is continued, with the handler back. Stop the jobs' groups first;
  /// the SIGCONT that wakes oprun is recorded as usual, to continue them.
  public func stopSelf() {
    oprun_signal_set_default(SIGTSTP)
    oprun_signal_unblock(SIGTSTP)
    raise(SIGTSTP)
    if trappedSignals.contains(SIGTSTP) { oprun_signal_trap_install(SIGTSTP) }
  }

  /// Ends oprun by `signal`, as make does after an interrupt: every handler
  /// restored, `signal` at its default action and unblocked, raised. The
  /// caller's shell then sees 128 + signal (130 for SIGINT, 143 for SIGTERM).
  public func restoreDefaultsAndRaise(_ signal: Int32) -> Never {
    uninstall()
    Self.end(by: signal)
  }

  /// Ends oprun by `signal` while no trap is installed: `signal` at its default action and
  /// unblocked, raised.
  public static func end(by signal: Int32) -> Never {
    oprun_signal_set_default(signal)
    oprun_signal_unblock(signal)
    raise(signal)
    _exit(ExitStatus.signalled(signal))  // A signal whose default is not to terminate.
  }

  /// Runs the recording handler as the kernel would on `signal`: for tests,
  /// which must never signal the test process itself.
  static func recordAsIfDelivered(_ signal: Int32) {
    oprun_signal_trap_record(signal)
  }
}
