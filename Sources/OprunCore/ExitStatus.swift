/// Every exit status oprun itself chooses (a run ended by a signal re-raises it instead).
public enum ExitStatus {
  /// Every job succeeded or was skipped by its `run-if`.
  public static let success: Int32 = 0
  /// A job failed, timed out or was cancelled; or a `ctl` request was refused.
  public static let failure: Int32 = 1
  /// A manifest or usage error: nothing ran.
  public static let usage: Int32 = 2

  /// 128 + `signal`, as a shell reports a process that `signal` ended (130 for SIGINT, 143
  /// for SIGTERM): what `run-finished` says of a run a signal ended, and what oprun exits
  /// with if re-raising the signal does not end it.
  public static func signalled(_ signal: Int32) -> Int32 { 128 + signal }
}
