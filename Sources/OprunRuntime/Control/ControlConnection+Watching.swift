/// A connection whose `watch` the run accepted (SPEC §8): every line of the run's history
/// from the first, then each new one as it is recorded, until the run's last line has been
/// taken; then the connection closes.
///
/// The history is read from its file a chunk of whole lines at a time, and only when the
/// socket has taken the previous chunk, so a watcher holds about one chunk in memory
/// however long the run. A watcher that has caught up is sent each new line from memory.
/// One that falls ``ControlLimits/watchLag`` behind — counting what the run recorded since
/// it attached and the socket has not taken — is sent a last `{"event":"watch-dropped"}`
/// line (best effort: it goes after the whole lines already handed over, if the client
/// takes them within ``ControlLimits/answerTimeout``) and closed. The run never waits for a
/// watcher, and once the run is over a watcher that stops taking the end is closed
/// (``ControlLimits/finalDrain``).
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

  /// The run's last line is recorded: the rest is sent, then the connection closes.
  func historyCompleted() {
    if phase == .watching { pump() }
  }

  /// The history could not be kept: no watcher can be sent all of it.
  func historyFailed() {
    if phase == .watching { drop() }
  }

  /// Bytes recorded since the watcher attached that the socket has not taken.
  private var lag: Int {
    let taken = historyOffset - (sink?.queuedByteCount ?? 0)
    return channel.history.length - max(taken, attachedAt)
  }

  /// Hands the sink the next chunk of history each time it has sent everything it held.
  /// Once the run is over, each call is progress: the watcher has that much longer.
  private func pump() {
    guard phase == .watching, let sink else { return }
    let history = channel.history
    if history.isComplete { setDeadline(limits.finalDrain) { $0.close() } }
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

  private func drop() {
    guard phase == .watching else { return }
    phase = .dropping
    // The sink only ever holds whole lines, so this one starts a line of its own.
    write(ControlWire.watchDroppedLine)
    closeWhenWritten()
  }
}
