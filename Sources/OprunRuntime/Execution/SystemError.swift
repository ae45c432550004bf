import COprunSystem
import Glibc

/// A system call that failed: which one, and the `errno` it set.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
  public var call: String
  public var errno: Int32

  public init(_ call: String, errno: Int32 = Glibc.errno) {
    self.call = call
    self.errno = errno
  }

  /// `call: reason`, e.g. `pipe2: Too many open files`.
  public var description: String { "\(call): \(errorMessage(errno))" }
}

/// The C library's text for an error number, e.g. `No such file or directory`.
func errorMessage(_ errno: Int32) -> String {
  String(cString: strerror(errno))
}

/// The text with the error's name, e.g. `Too many open files (EMFILE)`: the text for the
/// user, the name to search for, where a failure is worth looking up.
func errorMessageNamed(_ errno: Int32) -> String {
  guard let name = oprun_errno_name(errno) else { return errorMessage(errno) }
  return errorMessage(errno) + " (" + String(cString: name) + ")"
}
