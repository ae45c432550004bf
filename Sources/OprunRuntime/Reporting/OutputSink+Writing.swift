#if canImport(Glibc)
  import Glibc
#endif

extension OutputSink {
  /// How a sink's bytes reach its descriptor.
  ///
  /// oprun's standard output and error are open file descriptions it shares with the
  /// calling shell (and with `interactive: true` jobs, which get the terminal): setting
  /// `O_NONBLOCK` on them would make those programs' writes fail with `EAGAIN`. What was
  /// found on Linux 6.18, writing 4 KiB blocks to fd 1 of a test program:
  /// - a pipe or FIFO: `open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK)` gives a new
  ///   description of the same pipe; fd 1 stays blocking (a write to it while the reader
  ///   waits still blocks). The private one takes 64 KiB, then `EAGAIN`, with no `POLLOUT`
  ///   until the reader reads. A closed reader: `EPIPE`, and `POLLOUT | POLLERR`. A named
  ///   FIFO whose reader has gone refuses the reopen (`ENXIO`); an anonymous pipe does not.
  /// - a terminal (a pty): the same, with `O_NOCTTY` so oprun never gains a controlling
  ///   terminal. Stopped output (Ctrl-S, `tcflow(TCOOFF)`): `EAGAIN` at once and no
  ///   `POLLOUT` until it is started again; a pty master nobody reads: `EAGAIN` after 10 KiB.
  /// - a socket: the reopen fails (`ENXIO`); `send` with `MSG_DONTWAIT` takes what fits
  ///   (180 KiB of a socketpair), then `EAGAIN`, leaving the description's flags alone.
  /// - a regular file: the reopen works but starts at offset 0 without `O_APPEND`: under
  ///   `>> log` it overwrote the log's first line. A file never blocks for long.
  public enum Mode: Sendable, Equatable {
    /// `write(2)` on the descriptor itself, waiting as long as it takes: regular files,
    /// other devices, and a pipe or terminal whose reopening failed.
    case blocking
    /// `write(2)` on a private, non-blocking description of the same pipe or terminal.
    case privateDescription
    /// `send(2)` with `MSG_DONTWAIT | MSG_NOSIGNAL` on a copy of the socket's descriptor.
    case socket

    /// The mode for `fd`, and the descriptor to write: `fd` itself when blocking, else a new
    /// one the sink owns.
    static func choose(for fd: Int32) -> (mode: Mode, target: Int32) {
      var status = stat()
      guard fstat(fd, &status) == 0 else { return (.blocking, fd) }
      switch status.st_mode & S_IFMT {
      case S_IFSOCK:
        // A copy of the descriptor (the same description) so that every sink has its own
        // to watch, even two over one socket.
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        return copy >= 0 ? (.socket, copy) : (.blocking, fd)
      case S_IFIFO:
        return reopen(fd)
      case S_IFCHR where isatty(fd) == 1:
        return reopen(fd)
      default:
        return (.blocking, fd)
      }
    }

    private static func reopen(_ fd: Int32) -> (mode: Mode, target: Int32) {
      let reopened = open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
      return reopened >= 0 ? (.privateDescription, reopened) : (.blocking, fd)
    }
  }

  struct PutResult {
    var written = 0
    var error: Int32?
  }

  /// Writes as much of `bytes` as the descriptor takes now (for a blocking sink: all of
  /// it, or up to an error), resuming after `EINTR` and partial writes.
  func put(_ bytes: UnsafeRawBufferPointer) -> PutResult {
    var result = PutResult()
    guard let start = bytes.baseAddress else { return result }
    while result.written < bytes.count {
      let count = transfer(start + result.written, bytes.count - result.written)
      if count > 0 {
        result.written += count
        continue
      }
      let code = count == 0 ? EIO : errno
      switch code {
      case EINTR:
        continue
      case EAGAIN:  // EWOULDBLOCK too, on Linux
        guard mode == .blocking else { return result }
        // A description someone else made non-blocking is waited on, as if it blocked.
        var request = pollfd(fd: target, events: Int16(POLLOUT), revents: 0)
        if poll(&request, 1, -1) < 0, errno != EINTR { result.error = errno }
      default:
        result.error = code
      }
      if result.error != nil { return result }
    }
    return result
  }

  private func transfer(_ start: UnsafeRawPointer, _ count: Int) -> Int {
    mode == .socket
      ? send(target, start, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) : Glibc.write(target, start, count)
  }
}
