import Glibc

/// A run's output sinks on its event loop: made so that none blocks the loop, their
/// failures turned into what they mean (SPEC §2), and drained when the run is over.
///
/// - Standard output whose reader has gone (`EPIPE`, or `ECONNRESET` from a socket) is what
///   SIGPIPE means to a Unix filter: `onReaderClosed` runs, to cancel the run as SIGTERM
///   does; oprun then ends by SIGPIPE.
/// - Any other failure, of standard output or of a file (a full disk), is one `onWarning`
///   (`cannot write 'PATH': reason`); that sink is written no more and the run goes on.
/// - A failure of standard error is dropped silently: there is nowhere left to say it.
///
/// Both callbacks run on the loop, never from inside a write.
final class OutputFlow {
  /// Standard output's reader has gone while the run goes on.
  var onReaderClosed: () -> Void = {}
  /// A sink has failed; the message is the warning to show.
  var onWarning: (String) -> Void = { _ in }
  /// The signal oprun is to end by because of its output, when the run gives none: SIGPIPE
  /// once standard output closed during the drain, or the signal that abandoned it.
  private(set) var endingSignal: Int32?

  private let loop: EventLoop
  private var sinks: [OutputSink] = []
  private var isDraining = false
  private var isAbandoned = false

  init(loop: EventLoop) {
    self.loop = loop
  }

  /// A sink over `fileDescriptor`: standard output or error when `path` is nil, else the
  /// file opened from `path`, which a warning names.
  func sink(fileDescriptor: Int32, path: String? = nil, lineBuffered: Bool) -> OutputSink {
    let sink = OutputSink(fileDescriptor: fileDescriptor, lineBuffered: lineBuffered, loop: loop) {
      [weak self] code in self?.failed(fileDescriptor, path, code)
    }
    sinks.append(sink)
    return sink
  }

  /// The end of the run: flushes every sink, then serves the loop (signals included) until
  /// each has written all it holds or failed, however slow its reader, and `other` holds
  /// (what else ends with the run: the control channel's watchers). A cancelling signal
  /// meanwhile abandons what is left (``takesSignalWhileDraining(_:)``).
  func drain(alongWith other: () -> Bool = { true }) {
    isDraining = true
    defer { isDraining = false }
    for sink in sinks { sink.flush() }
    loop.run { isAbandoned || (sinks.allSatisfy(\.isDrained) && other()) }
  }

  /// Whether `signal` is handled here, as it is while draining (the run is over): SIGINT,
  /// SIGTERM or SIGHUP abandons the drain and becomes the `endingSignal` if none is; SIGTSTP
  /// and SIGCONT are left to the run, so that Ctrl-Z still stops oprun; any other is ignored.
  func takesSignalWhileDraining(_ signal: Int32) -> Bool {
    guard isDraining else { return false }
    switch signal {
    case SIGINT, SIGTERM, SIGHUP:
      isAbandoned = true
      endingSignal = endingSignal ?? signal
      return true
    case SIGTSTP, SIGCONT:
      return false
    default:
      return true
    }
  }

  private func failed(_ fileDescriptor: Int32, _ path: String?, _ code: Int32) {
    switch (path, fileDescriptor) {
    case (nil, STDERR_FILENO):
      return
    case (nil, STDOUT_FILENO) where code == EPIPE || code == ECONNRESET:
      if isDraining { endingSignal = endingSignal ?? SIGPIPE } else { onReaderClosed() }
    default:
      onWarning("cannot write \(path.map { "'\($0)'" } ?? "standard output"): \(errorMessage(code))")
    }
  }
}
