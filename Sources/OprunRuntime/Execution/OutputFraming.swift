import OprunCore

/// How a process's output reaches its handler.
public enum OutputFraming: Sendable, Equatable {
  /// Whole lines, each with its line end; a line still open when the process
  /// exits, or when its pipe is closed, is delivered without one — or with a `\n`
  /// added, when `endingLastLine`. A line longer than `maximumLineLength` bytes is
  /// delivered in pieces of that length.
  case lines(maximumLineLength: Int = 1 << 20, endings: LineEndings = .newline, endingLastLine: Bool = false)
  /// Chunks as read (up to 64 KiB each), unsplit.
  case chunks

  /// Lines of at most 1 MiB, ended by `\n`.
  public static let lines = OutputFraming.lines()
  /// What `--output prefixed` and `grouped` show: lines of at most 1 MiB, ended by `\n`;
  /// the line a command leaves unfinished is ended, so that what the job writes next
  /// (another command, its next attempt, its completion) is not glued to it.
  public static let jobLines = OutputFraming.lines(endingLastLine: true)
  /// What `--output raw` passes on (SPEC §2): lines ended by `\n` or `\r` (a progress
  /// bar's update is a line), of at most 64 KiB; a last unfinished line is ended too.
  public static let terminalLines = OutputFraming.lines(
    maximumLineLength: 64 << 10, endings: .newlineOrReturn, endingLastLine: true)
}

/// Which bytes end a line.
public enum LineEndings: Sendable, Equatable {
  /// `\n` only.
  case newline
  /// `\n`, or `\r` (with the `\n` that follows it in the same read, if any).
  case newlineOrReturn
}

/// Receives a process's output: the stream and the bytes. The slice is only
/// borrowed for the call — copy it (`Array(bytes)`) to keep it.
public typealias OutputHandler = (OutputStream, ArraySlice<UInt8>) -> Void
