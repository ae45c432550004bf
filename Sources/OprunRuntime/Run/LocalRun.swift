import OprunCore

/// A run on this machine: manifest → graph → queues → processes → events → reporters.
public enum LocalRun {
  /// Runs `configuration` to the end and returns oprun's exit status.
  public static func execute(_ configuration: RunConfiguration) -> Int32 {
    ExitStatus.usage
  }
}
