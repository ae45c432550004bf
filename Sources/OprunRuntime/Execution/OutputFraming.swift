import OprunCore

/// How a process's output reaches its handler.
public enum OutputFraming: Sendable, Equatable {
  /// Whole lines, each with its `\n`; a line still open when the pipe is done
  /// is delivered without one. A line longer than `maximumLineLength` bytes is
  /// delivered in pieces of that length.
  case lines(maximumLineLength: Int = 1 << 20)
  /// Chunks as read (up to 64 KiB each), unsplit.
  case chunks

  /// Lines of at most 1 MiB.
  public static let lines = OutputFraming.lines()
}

/// Receives a process's output: the stream and the bytes. The slice is only
/// borrowed for the call — copy it (`Array(bytes)`) to keep it.
public typealias OutputHandler = (OutputStream, ArraySlice<UInt8>) -> Void
