#if canImport(Glibc)
  import Glibc
#endif

/// A buffered writer over a file descriptor, for reporters.
///
/// Bytes collect in a user-space buffer and reach the descriptor in as few `write(2)` calls
/// as possible: when the buffer fills, on ``flush()``, and, in line-buffered mode, whenever
/// a write contains a newline. Interrupted and partial writes are resumed. A reader that has
/// gone away (`EPIPE`; oprun ignores SIGPIPE) or any other write error marks the sink
/// broken: from then on output is dropped, so a closed pipe never stops or stalls the run.
///
/// Not thread-safe: a sink belongs to the thread that drives the run's observers.
public final class OutputSink {
  /// The descriptor written to; the sink never closes it.
  public let fileDescriptor: Int32
  /// Whether every write that contains a newline is flushed at once.
  public let isLineBuffered: Bool
  /// The `errno` of the write that broke the sink, or nil while it works.
  public private(set) var failure: Int32?

  /// Invariant: `buffer.count < capacity` between calls.
  private var buffer: [UInt8]
  private let capacity: Int

  /// A sink over `fileDescriptor`; `capacity` bytes are buffered before a write is forced.
  public init(fileDescriptor: Int32, lineBuffered: Bool = false, capacity: Int = 16 * 1024) {
    self.fileDescriptor = fileDescriptor
    self.isLineBuffered = lineBuffered
    self.capacity = max(capacity, 1)
    self.buffer = []
    buffer.reserveCapacity(self.capacity)
  }

  deinit { flush() }

  /// Whether output is being dropped because the descriptor can no longer be written.
  public var isBroken: Bool { failure != nil }

  /// Appends the UTF-8 bytes of `text`.
  public func write(_ text: String) {
    var text = text
    text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
  }

  /// Appends `bytes`.
  public func write(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { write($0) }
  }

  /// Appends `bytes`; the memory is not retained.
  public func write(_ bytes: UnsafeRawBufferPointer) {
    guard !isBroken, !bytes.isEmpty else { return }
    if buffer.count + bytes.count >= capacity {
      flush()
      if bytes.count >= capacity {
        writeToDescriptor(bytes)
        return
      }
    }
    buffer.append(contentsOf: bytes)
    if isLineBuffered, bytes.contains(UInt8(ascii: "\n")) { flush() }
  }

  /// Writes everything buffered to the descriptor.
  public func flush() {
    guard !buffer.isEmpty else { return }
    buffer.withUnsafeBytes { writeToDescriptor($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes all of `bytes`, resuming after `EINTR`, partial writes and `EAGAIN`.
  private func writeToDescriptor(_ bytes: UnsafeRawBufferPointer) {
    guard var next = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0, !isBroken {
      let written = Glibc.write(fileDescriptor, next, remaining)
      if written > 0 {
        next += written
        remaining -= written
      } else if written == 0 {
        failure = EIO
      } else {
        handleWriteError(errno)
      }
    }
  }

  private func handleWriteError(_ code: Int32) {
    switch code {
    case EINTR: return
    case EAGAIN, EWOULDBLOCK: waitUntilWritable()
    default: failure = code
    }
  }

  /// A non-blocking descriptor (a terminal shared with another program) is waited on,
  /// as a blocking one would be.
  private func waitUntilWritable() {
    var request = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
    if poll(&request, 1, -1) < 0, errno != EINTR { failure = errno }
  }
}

extension OutputSink {
  /// A sink over standard output.
  public static func standardOutput(lineBuffered: Bool = false) -> OutputSink {
    OutputSink(fileDescriptor: STDOUT_FILENO, lineBuffered: lineBuffered)
  }

  /// A sink over standard error.
  public static func standardError(lineBuffered: Bool = true) -> OutputSink {
    OutputSink(fileDescriptor: STDERR_FILENO, lineBuffered: lineBuffered)
  }
}
