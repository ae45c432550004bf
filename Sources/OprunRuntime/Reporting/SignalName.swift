#if canImport(Glibc)
  import Glibc
#endif

/// Signal names as users know them from `kill -l`.
public enum SignalName {
  /// `SIGSEGV` for 11; `SIGRTMIN+3` for a real-time signal; `signal 99` when unknown.
  public static func of(_ signal: Int32) -> String {
    if let name = names[signal] { return "SIG" + name }
    let realTimeMinimum = Int32(__libc_current_sigrtmin())
    let realTimeMaximum = Int32(__libc_current_sigrtmax())
    if signal >= realTimeMinimum, signal <= realTimeMaximum {
      return signal == realTimeMinimum ? "SIGRTMIN" : "SIGRTMIN+\(signal - realTimeMinimum)"
    }
    return "signal \(signal)"
  }

  private static let names: [Int32: String] = [
    SIGHUP: "HUP", SIGINT: "INT", SIGQUIT: "QUIT", SIGILL: "ILL", SIGTRAP: "TRAP", SIGABRT: "ABRT",
    SIGBUS: "BUS", SIGFPE: "FPE", SIGKILL: "KILL", SIGUSR1: "USR1", SIGSEGV: "SEGV", SIGUSR2: "USR2",
    SIGPIPE: "PIPE", SIGALRM: "ALRM", SIGTERM: "TERM", SIGSTKFLT: "STKFLT", SIGCHLD: "CHLD",
    SIGCONT: "CONT", SIGSTOP: "STOP", SIGTSTP: "TSTP", SIGTTIN: "TTIN", SIGTTOU: "TTOU", SIGURG: "URG",
    SIGXCPU: "XCPU", SIGXFSZ: "XFSZ", SIGVTALRM: "VTALRM", SIGPROF: "PROF", SIGWINCH: "WINCH",
    SIGIO: "IO", SIGPWR: "PWR", SIGSYS: "SYS",
  ]
}
