import Glibc
import OprunCore

/// One client of a ``ControlChannel``, from its connection to its close.
///
/// Its phases: *reading* one request line — at most the longest request and its newline
/// are kept, and the whole line must come within ``ControlLimits/requestTimeout`` — then
/// *awaiting* the run's answer, then *answering* (the answer line, which the client must
/// take within ``ControlLimits/answerTimeout``) and closed; or, for a `watch` the run
/// accepted, *watching* (`ControlConnection+Watching.swift`). Nothing here blocks the loop:
/// reads are non-blocking and writes go through an ``OutputSink`` that never holds the
/// run's own output back. What is not a request (too long, not JSON, the wrong shape, cut
/// off by a hang-up) is answered with an error and never reaches the run.
final class ControlConnection {
  enum Phase {
    case reading, awaitingAnswer, answering, watching, dropping, closed
  }

  let fd: Int32
  let peer: (uid: UInt32, pid: Int32)
  var phase = Phase.reading
  unowned let channel: ControlChannel
  /// The request line read so far; never more than the longest request and its newline.
  private var request: [UInt8] = []
  /// Created with the first byte to write; owns a copy of `fd` to send through.
  var sink: OutputSink?
  /// The timer of the current phase's time limit, if it has one.
  var deadline: TimerID?
  /// Watching: the history's bytes handed to the sink so far, a line boundary.
  var historyOffset = 0
  /// Watching: the history's length when the watcher attached; what came before is not
  /// counted as falling behind.
  var attachedAt = 0

  init(fd: Int32, peer: (uid: UInt32, pid: Int32), channel: ControlChannel) {
    self.fd = fd
    self.peer = peer
    self.channel = channel
  }

  var loop: EventLoop { channel.loop }
  var limits: ControlLimits { channel.limits }

  func start() {
    loop.watch(fd: fd) { [weak self] in self?.readable() }
    setDeadline(limits.requestTimeout) { connection in
      let seconds = DecimalText.string(connection.limits.requestTimeout, fractionDigits: 3, trimmingZeros: true)
      connection.refuse("no request line within \(seconds) s")
    }
    // A client sends its line as soon as it connects: it is often here already, and taking it
    // now rather than at the next turn answers a run busy with output one turn sooner.
    readable()
  }

  /// Reads what has come, up to the one byte past the longest request.
  private func readable() {
    guard phase == .reading else { return }
    let room = ControlWire.maximumRequestLength + 1 - request.count
    let count = loop.readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, min(room, $0.count)) }
    if count < 0 {
      if errno != EAGAIN && errno != EINTR { close() }
      return
    }
    if count == 0 {
      // A hang-up: before a word, nothing to answer; mid-line, the line is no request.
      if request.isEmpty { close() } else { refuse("the request line ended without a newline") }
      return
    }
    let start = request.count
    request.append(contentsOf: loop.readBuffer[..<count])
    if let newline = request[start...].firstIndex(of: UInt8(ascii: "\n")) {
      let line = request[..<newline]
      stopReading()
      submit(line)
    } else if request.count > ControlWire.maximumRequestLength {
      refuse("the request line is longer than \(ControlWire.maximumRequestLength >> 10) KiB")
    }
  }

  /// Reads no more: what follows a request is ignored, and a client that writes on gets
  /// `EPIPE` rather than filling a buffer nobody reads.
  private func stopReading() {
    loop.unwatch(fd: fd)
    shutdown(fd, Int32(SHUT_RD))
    request = []
    clearDeadline()
  }

  private func submit(_ line: ArraySlice<UInt8>) {
    switch ControlWire.request(from: line) {
    case .failure(let problem):
      refuse(problem.message)
    case .success(let (command, args)):
      phase = .awaitingAnswer
      // The run answers at once; this only keeps a connection from waiting forever on a bug.
      setDeadline(limits.answerTimeout) { $0.refuse("the run did not answer") }
      let request = ControlRequest(command: command, args: args, peerUID: peer.uid, peerPID: peer.pid)
      channel.apply(.control(request, reply: ControlReply { [weak self] in self?.answered($0, to: command) }))
    }
  }

  private func answered(_ answer: ControlAnswer, to command: String) {
    guard phase == .awaitingAnswer else { return }
    clearDeadline()
    if command == "watch", answer.ok {
      if let failure = channel.history.failure {
        refuse("the run's history for watchers is no longer kept: \(failure)")
      } else {
        write(ControlWire.answerLine(answer))
        startWatching()
      }
    } else {
      write(ControlWire.answerLine(answer))
      closeWhenWritten()
    }
  }

  /// Answers with an error, then closes; the run never hears of it.
  func refuse(_ problem: String) {
    if phase == .reading { stopReading() }
    write(ControlWire.answerLine(.refused(problem)))
    closeWhenWritten()
  }

  func write(_ bytes: [UInt8]) {
    if sink == nil {
      // Never congested: a client is not part of the run's output and never slows it.
      sink = OutputSink(
        fileDescriptor: fd, capacity: limits.watchChunk, loop: loop, highWaterMark: .max, lowWaterMark: .max
      ) { [weak self] _ in self?.close() }
    }
    sink?.write(bytes)
    sink?.flush()
  }

  /// Closes once everything written has been taken, or when the client has not taken it in time.
  func closeWhenWritten() {
    if phase != .dropping { phase = .answering }
    guard let sink, sink.queuedByteCount > 0, !sink.isBroken else {
      // A broken sink's failure closes the connection on a later turn.
      if sink?.isBroken != true { close() }
      return
    }
    sink.onDrained = { [weak self] in self?.close() }
    setDeadline(limits.answerTimeout) { $0.close() }
  }

  func setDeadline(_ seconds: Double, _ action: @escaping (ControlConnection) -> Void) {
    clearDeadline()
    deadline = loop.schedule(after: seconds) { [weak self] in
      guard let self else { return }
      deadline = nil
      action(self)
    }
  }

  func clearDeadline() {
    deadline.map(loop.cancelTimer)
    deadline = nil
  }

  /// Closes the connection at once; what was not sent is dropped.
  func close() {
    guard phase != .closed else { return }
    if phase == .reading { loop.unwatch(fd: fd) }
    phase = .closed
    clearDeadline()
    sink = nil
    Glibc.close(fd)
    channel.remove(self)
  }
}
