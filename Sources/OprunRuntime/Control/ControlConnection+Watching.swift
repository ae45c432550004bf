/// A connection whose `watch` the run accepted (SPEC §8): every line of the run's history
/// from the first, then each new one as it is recorded, until the run's last line; then the
/// connection closes.
///
/// The history is read from its file a chunk of whole lines at a time, and only when the
/// socket has taken the previous chunk, so a watcher holds about one chunk in memory
/// however long the run. A watcher that has caught up is sent each new line from memory.
///
/// The run never waits for a watcher. One that falls ``ControlLimits/watchLag`` behind —
/// counting what the run recorded since it attached and the socket has not taken — is
/// dropped at once: what waits for its socket is forgotten, and the socket is sent the end of
/// the line it holds part of and a last `{"event":"watch-dropped"}` line (``drop()``), then
/// closed; the watcher reads them when it reads again, after everything it was sent. When the
/// run ends, each watcher is sent what its socket takes then; one that cannot take the whole
/// end is dropped the same way, so that a stopped watcher holds the end of no run.
extension ControlConnection {
  func startWatching() {
    // Before this connection watches: what the history gains now is history to it, not lag.
    channel.recordLive()
    phase = .watching
    historyOffset = 0
    attachedAt = channel.history.length
    sink?.onDrained = { [weak self] in self?.pump() }
    pump()
  }

  /// A line was recorded.
  func historyGrew(by line: [UInt8]) {
    guard phase == .watching, let sink, !sink.isBroken else { return }
    if lag > limits.watchLag {
      drop()
      return
    }
    // While the socket is full, the sink's `onDrained` pumps.
    guard sink.queuedByteCount == 0 else { return }
    if historyOffset + line.count == channel.history.length {
      historyOffset += line.count
      sink.write(line)
      sink.flush()
    } else {
      pump()
    }
  }

  /// The run's last line is recorded and the run is ending: the rest is sent as far as the
  /// socket takes it now, and the connection closes; a watcher that cannot take all of it is
  /// dropped.
  func historyCompleted() {
    guard phase == .watching else { return }
    pump()
    guard phase == .watching else { return }
    // A watcher that keeps up is a chunk behind at most: the end it has not taken goes past
    // the full socket, whole or not at all, and leaves room for `watch-dropped` if not.
    var taken = takenOffset
    let history = channel.history
    if history.length - taken <= limits.watchChunk, case .success(let end) = history.bytes(in: taken..<history.length) {
      sink?.discardQueued()
      sink = nil
      let sent = UnixSocket.sendLast(fd, end)
      if sent == end.count {
        close()
        return
      }
      taken += sent
    }
    drop(after: taken)
  }

  /// The history's offset up to which the socket has taken its bytes. The answer line went
  /// first, into an empty socket, so everything the socket took after it is history.
  private var takenOffset: Int { max(historyOffset - (sink?.queuedByteCount ?? 0), 0) }

  /// The history could not be kept: no watcher can be sent all of it.
  func historyFailed() {
    if phase == .watching { drop() }
  }

  /// Bytes recorded since the watcher attached that the socket has not taken.
  private var lag: Int { channel.history.length - max(takenOffset, attachedAt) }

  /// Hands the sink the next chunk of history each time it has sent everything it held.
  private func pump() {
    guard phase == .watching, let sink else { return }
    let history = channel.history
    while !sink.isBroken, sink.queuedByteCount == 0, historyOffset < history.length {
      switch history.lines(from: historyOffset, atMost: limits.watchChunk) {
      case .success(let lines):
        historyOffset += lines.count
        sink.write(lines)
        sink.flush()
      case .failure:
        drop()
        return
      }
    }
    if history.isComplete, historyOffset == history.length, sink.queuedByteCount == 0, !sink.isBroken { close() }
  }

  /// Gives the watcher up at once: the socket keeps what it was sent, then the rest of the
  /// line it holds part of and `watch-dropped`, written past a full socket (``UnixSocket/sendLast(_:_:)``);
  /// what the sink still held is never sent.
  /// `taken`: the history's offset the socket has taken up to, when the sink no longer says.
  private func drop(after taken: Int? = nil) {
    guard phase == .watching else { return }
    phase = .dropping
    clearDeadline()
    let taken = taken ?? takenOffset
    sink?.discardQueued()
    sink = nil
    // A line that cannot be read back is ended as it is: the watcher skips it, and still
    // reads `watch-dropped` on a line of its own.
    let rest = (try? channel.history.restOfLine(from: taken).get()) ?? [UInt8(ascii: "\n")]
    UnixSocket.sendLast(fd, rest + ControlWire.watchDroppedLine)
    close()
  }
}
