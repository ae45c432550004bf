import COprunSystem
import Glibc
import OprunCore

/// Reads one output pipe of a child for the event loop, and owns its read end.
///
/// Delivers what it reads through the framing, for as long as the pipe is open: what a
/// grandchild writes after the child exited is delivered too. `drainForExit` takes what was
/// already in the pipe when the process exited, so a grandchild that keeps the pipe open
/// cannot hold up the exit; `readLastAndClose` ends a pipe such a grandchild still holds.
/// Reading on until then also keeps the grandchild from dying of SIGPIPE.
final class OutputReader {
  let fd: Int32
  let stream: OutputStream
  private var splitter: LineSplitter?
  /// Masks the run's secrets before the splitter sees the bytes; nil without `secrets`.
  private var masking: SecretMaskingStream?
  /// A last unfinished line is delivered with a `\n` added.
  private var endingLastLine = false
  private let handler: OutputHandler
  private(set) var isClosed = false

  /// Reads taken per wake-up before letting other descriptors have a turn: one (64 KiB), so
  /// that a job that writes without pause keeps signals and control requests waiting no
  /// longer than 64 KiB of output takes to frame and print (a `poll` costs far less).
  private static let readsPerTurn = 1

  init(
    fd: Int32, stream: OutputStream, framing: OutputFraming, secrets: SecretPatterns? = nil,
    handler: @escaping OutputHandler
  ) {
    self.fd = fd
    masking = secrets.map(SecretMaskingStream.init)
    self.stream = stream
    self.handler = handler
    if case .lines(let maximumLength, let endings, let endingLastLine) = framing {
      splitter = LineSplitter(maximumLength: maximumLength, endings: endings)
      self.endingLastLine = endingLastLine
    }
  }

  deinit {
    if !isClosed { close(fd) }
  }

  /// Reads what the pipe holds (a bounded amount per turn, and no more once the
  /// loop holds output back); true at end of file.
  func readAvailable(using loop: EventLoop) -> Bool {
    for _ in 0..<Self.readsPerTurn {
      guard !loop.isHoldingBackOutput else { return false }
      switch readOnce(using: loop, limit: EventLoop.readSize) {
      case .data: continue
      case .wouldBlock: return false
      case .endOfFile: return true
      }
    }
    return false
  }

  /// Takes what a process left in the pipe when it exited: reads the bytes
  /// waiting now (every byte written before the exit, perhaps a few after) and
  /// delivers the last partial line. True when the pipe is at end of file
  /// (nobody else holds it); otherwise the reader goes on reading what comes.
  func drainForExit(using loop: EventLoop) -> Bool {
    if readWaiting(using: loop) { return true }
    flushPartialLine()
    if case .endOfFile = readOnce(using: loop, limit: EventLoop.readSize) { return true }
    return false
  }

  /// Reads the bytes waiting now, whatever else is still writing to the pipe, and closes it
  /// (delivering a last partial line): the pipe's last turn when the run ends.
  func readLastAndClose(using loop: EventLoop) {
    _ = readWaiting(using: loop)
    finish()
  }

  /// Delivers a partial line, if any, then closes the read end.
  func finish() {
    flushPartialLine()
    if !isClosed {
      close(fd)
      isClosed = true
    }
  }

  private enum ReadResult {
    case data(Int)
    case wouldBlock
    case endOfFile
  }

  /// Reads as many bytes as wait in the pipe now (FIONREAD), and no more, so that a writer
  /// that never pauses cannot keep it reading; true at end of file.
  private func readWaiting(using loop: EventLoop) -> Bool {
    var remaining = Int(max(oprun_bytes_readable(fd), 0))
    while remaining > 0 {
      switch readOnce(using: loop, limit: min(remaining, EventLoop.readSize)) {
      case .data(let count): remaining -= count
      case .wouldBlock: remaining = 0
      case .endOfFile: return true
      }
    }
    return false
  }

  private func readOnce(using loop: EventLoop, limit: Int) -> ReadResult {
    let count = loop.readBuffer.withUnsafeMutableBytes { buffer in
      read(fd, buffer.baseAddress, limit)
    }
    if count > 0 {
      deliver(loop.readBuffer[0..<count])
      return .data(count)
    }
    if count == 0 { return .endOfFile }
    switch errno {
    case EINTR: return .data(0)
    case EAGAIN: return .wouldBlock
    default: return .endOfFile  // EIO and the like: nothing more will come.
    }
  }

  private func deliver(_ chunk: ArraySlice<UInt8>) {
    if masking != nil {
      masking!.mask(chunk) { frame($0) }
    } else {
      frame(chunk)
    }
  }

  private func frame(_ chunk: ArraySlice<UInt8>) {
    guard splitter != nil else {
      handler(stream, chunk)
      return
    }
    let (stream, handler) = (self.stream, self.handler)
    splitter!.split(chunk) { handler(stream, $0) }
  }

  /// Delivers the line a process left unfinished when it exited or closed the pipe, if
  /// any; ended with a newline when the framing says so.
  private func flushPartialLine() {
    if masking != nil { masking!.finish { frame($0) } }
    let (stream, handler) = (self.stream, self.handler)
    if endingLastLine {
      splitter?.finish { handler(stream, $0 + [UInt8(ascii: "\n")]) }
    } else {
      splitter?.finish { handler(stream, $0) }
    }
  }
}
