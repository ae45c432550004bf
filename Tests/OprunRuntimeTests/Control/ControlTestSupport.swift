import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// A control channel on a real event loop, in a folder of its own, whose requests a fake
/// run answers: every command the channel hands over is recorded, and each request is
/// answered by `answer` (ok with no data unless a test says otherwise).
final class ChannelHarness {
  let loop = EventLoop()
  let parent: String
  let folder: String
  let graph: JobGraph
  var channel: ControlChannel!
  /// Every command handed to the run, in order.
  private(set) var commands: [RunCommand] = []
  /// How the fake run answers a request; nil leaves it unanswered.
  var answer: (ControlRequest) -> ControlAnswer? = { _ in ControlAnswer(ok: true) }

  init(limits: ControlLimits = ControlLimits(), graph: JobGraph = makeGraph(jobs: ["build", "test"])) throws {
    self.graph = graph
    parent = try makeTemporaryDirectory()
    folder = parent + "/oprun"
    channel = try ChannelHarness.open(self, limits: limits).get()
  }

  private static func open(_ harness: ChannelHarness, limits: ControlLimits) -> Result<
    ControlChannel, ControlChannelError
  > {
    ControlChannel.open(graph: harness.graph, loop: harness.loop, limits: limits, folder: harness.folder) {
      [weak harness] command in harness?.handle(command)
    }
  }

  deinit {
    channel?.close()
    channel = nil
    try? FileManager.default.removeItem(atPath: parent)
  }

  private func handle(_ command: RunCommand) {
    commands.append(command)
    if case .control(let request, let reply) = command, let answer = answer(request) { reply.send(answer) }
  }

  /// The requests handed to the run.
  var requests: [ControlRequest] {
    commands.compactMap { command in
      if case .control(let request, _) = command { return request }
      return nil
    }
  }

  /// Records `events` as the run would deliver them.
  func record(_ events: [RunEvent]) {
    for event in events { channel.recorder.observe(event) }
  }

  /// A client connected to the channel, reading what it is sent unless told not to.
  func connect(reading: Bool = true) throws -> TestClient {
    try TestClient(path: channel.path, loop: loop, reading: reading)
  }

  /// Sends `line` from a new client and waits for the channel to close the connection;
  /// returns everything the client was sent.
  func exchange(_ line: [UInt8]) throws -> String {
    let client = try connect()
    client.send(line)
    runLoop(loop) { client.isClosed }
    return client.text
  }

  func exchange(_ line: String) throws -> String { try exchange(Array(line.utf8)) }
}

/// One end of a connection to a channel, driven by the same loop: it sends what it is
/// given without blocking, and collects what it receives until the channel closes.
final class TestClient {
  let fd: Int32
  let loop: EventLoop
  private(set) var received: [UInt8] = []
  private(set) var isClosed = false
  /// Set when the channel stopped taking what the client sends (EPIPE, ECONNRESET).
  private(set) var sendFailed = false
  private var unsent: [UInt8] = []
  private var unsentStart = 0

  init(path: String, loop: EventLoop, reading: Bool) throws {
    guard case .connected(let fd) = UnixSocket.connect(path, nonblocking: true) else {
      throw ClientError(description: "cannot connect to \(path)")
    }
    self.fd = fd
    self.loop = loop
    if reading { startReading() }
  }

  deinit {
    loop.unwatch(fd: fd)
    loop.unwatchWritable(fd: fd)
    close(fd)
  }

  var text: String { String(decoding: received, as: UTF8.self) }

  /// What was received, as lines without their newlines.
  var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

  func send(_ text: String) { send(Array(text.utf8)) }

  /// Queues `bytes` and sends what the socket takes, the rest as it has room.
  func send(_ bytes: [UInt8]) {
    unsent += bytes
    sendQueued()
  }

  /// Half-closes: the channel reads end of file after what was sent.
  func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

  /// Hangs up at once.
  func hangUp() {
    loop.unwatch(fd: fd)
    loop.unwatchWritable(fd: fd)
    shutdown(fd, Int32(SHUT_RDWR))
  }

  /// Reads once, at most `count` bytes, if any have come; true at the end of the stream.
  @discardableResult
  func readSome(upTo count: Int) -> Bool {
    var block = [UInt8](repeating: 0, count: count)
    let got = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
    if got > 0 { received += block[0..<got] }
    if got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR) { isClosed = true }
    return isClosed
  }

  func startReading() {
    var block = [UInt8](repeating: 0, count: 65_536)
    loop.watch(fd: fd) { [unowned self] in
      let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count > 0 {
        received += block[0..<count]
      } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
        isClosed = true
        loop.unwatch(fd: fd)
      }
    }
  }

  private func sendQueued() {
    while unsentStart < unsent.count {
      let count = unsent[unsentStart...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
      }
      if count > 0 {
        unsentStart += count
        continue
      }
      if errno == EAGAIN {
        loop.watchWritable(fd: fd) { [unowned self] in sendQueued() }
      } else {
        sendFailed = true
        loop.unwatchWritable(fd: fd)
      }
      return
    }
    unsent = []
    unsentStart = 0
    loop.unwatchWritable(fd: fd)
  }

  /// Whether everything given to `send` has gone (or sending failed).
  var isDoneSending: Bool { unsent.isEmpty || sendFailed }
}

struct ClientError: Error, CustomStringConvertible {
  var description: String
}

/// The answer line of a refusal, as the channel writes it.
func refusal(_ message: String) -> String {
  String(decoding: ControlWire.answerLine(.refused(message)), as: UTF8.self)
}

/// The mode bits of `path` itself (not what a link points to).
func modeOf(_ path: String) -> mode_t? {
  var status = stat()
  return lstat(path, &status) == 0 ? status.st_mode : nil
}
