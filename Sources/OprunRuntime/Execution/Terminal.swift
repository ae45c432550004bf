import COprunSystem
import Glibc

/// Questions about oprun's terminal, and handing its foreground to an interactive job.
public enum Terminal {
  /// Whether `fd` refers to a terminal.
  public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  public static var standardInputIsTerminal: Bool { isTerminal(STDIN_FILENO) }

  /// The width in columns of the terminal `fd` refers to; nil when it is none or says 0.
  public static func columns(_ fd: Int32) -> Int? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// Standard input is a terminal whose foreground process group is oprun's:
  /// only then may a job be given the terminal (oprun started with `&` must
  /// not take it from the shell).
  public static var oprunHoldsForeground: Bool {
    standardInputIsTerminal && tcgetpgrp(STDIN_FILENO) == getpgrp()
  }

  /// Makes `processGroup` the terminal's foreground group (SIGTTOU blocked
  /// meanwhile). False when standard input is no terminal or the call fails.
  @discardableResult
  public static func giveForeground(to processGroup: Int32) -> Bool {
    standardInputIsTerminal && oprun_terminal_set_foreground(STDIN_FILENO, processGroup) == 0
  }

  /// Makes oprun's own process group the terminal's foreground group again.
  @discardableResult
  public static func reclaimForeground() -> Bool {
    giveForeground(to: getpgrp())
  }
}
