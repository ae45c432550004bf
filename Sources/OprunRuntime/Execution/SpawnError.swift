import Glibc

/// Why a child could not be started; nothing of it is left running.
public enum SpawnError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The working directory could not be entered.
  case directory(String, errno: Int32)
  /// The shell could not be executed.
  case program(String, errno: Int32)
  /// A resource the spawn needs (a pipe, a process, a pidfd) was refused.
  case system(SystemError)

  /// The system ran short of what a start needs — descriptors (EMFILE, ENFILE), processes
  /// (EAGAIN) — rather than refusing this command: worth another try once the run's own
  /// commands have given some back.
  public var isShortOfResources: Bool {
    let errno =
      switch self {
      case .directory(_, let errno), .program(_, let errno): errno
      case .system(let error): error.errno
      }
    return errno == EMFILE || errno == ENFILE || errno == EAGAIN
  }

  public var description: String {
    switch self {
    case .directory(let path, let errno):
      "cannot change to directory '\(path)': \(errorMessageNamed(errno))"
    case .program(let path, let errno):
      "cannot run '\(path)': \(errorMessageNamed(errno))"
    case .system(let error):
      "cannot start a process: \(error.call): \(errorMessageNamed(error.errno))"
    }
  }
}
