/// Why a child could not be started; nothing of it is left running.
public enum SpawnError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The working directory could not be entered.
  case directory(String, errno: Int32)
  /// The shell could not be executed.
  case program(String, errno: Int32)
  /// A resource the spawn needs (a pipe, a process, a pidfd) was refused.
  case system(SystemError)

  public var description: String {
    switch self {
    case .directory(let path, let errno):
      "cannot change to directory '\(path)': \(errorMessage(errno))"
    case .program(let path, let errno):
      "cannot run '\(path)': \(errorMessage(errno))"
    case .system(let error):
      "cannot start a process: \(error)"
    }
  }
}
