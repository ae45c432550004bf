import Glibc
import OprunRuntime
import Testing

/// Sinks on an event loop: never blocking it, holding job output back when congested,
/// reporting a failure once.
@Suite struct ReportingNonBlockingSinkTests {
  @Test func aPipeIsWrittenThroughAPrivateDescriptionThatLeavesTheSharedOneBlocking() throws {
    let loop = EventLoop()
    let pipe = try TestPipe()
    let sink = OutputSink(fileDescriptor: pipe.writeEnd, loop: loop)
    #expect(sink.mode == .privateDescription)
    #expect(fcntl(pipe.writeEnd, F_GETFL) & O_NONBLOCK == 0)
    sink.write("through the pipe\n")
    sink.flush()
    #expect(String(decoding: pipe.drain(17), as: UTF8.self) == "through the pipe\n")
  }

  @Test func whatAFullPipeRefusesIsKeptAndWrittenOnceItHasRoom() throws {
    let loop = EventLoop()
    let pipe = try TestPipe()
    pipe.shrink()
    let sink = OutputSink(fileDescriptor: pipe.writeEnd, capacity: 1000, loop: loop)
    let payload = pattern(300_000)
    for start in stride(from: 0, to: payload.count, by: 777) {
      sink.write(Array(payload[start..<min(start + 777, payload.count)]))
    }
    sink.flush()
    // The pipe took what fitted; the rest waits, and nothing blocked.
    #expect(sink.queuedByteCount > 0)
    #expect(sink.queuedByteCount < payload.count)
    let received = collect(from: pipe.readEnd, on: loop, until: { $0.count == payload.count })
    #expect(received == payload)
    #expect(sink.isDrained)
    #expect(!sink.isBroken)
  }

  @Test func congestionHoldsOutputBackAboveTheHighMarkAndReleasesItUnderTheLowMark() throws {
    let loop = EventLoop()
    let pipe = try TestPipe()
    pipe.shrink()
    let sink = OutputSink(
      fileDescriptor: pipe.writeEnd, loop: loop, highWaterMark: 64 * 1024, lowWaterMark: 16 * 1024)
    sink.write(pattern(40 * 1024))
    sink.flush()
    #expect(!sink.isCongested, "under the high mark")
    sink.write(pattern(40 * 1024))
    #expect(sink.isCongested)
    #expect(loop.isHoldingBackOutput)
    // Read a little at a time: congestion lasts until less than the low mark is queued.
    var releasedWith: Int?
    var stillCongestedAtOrAboveLow = true
    loop.watch(fd: pipe.readEnd) {
      pipe.drain(1024)
      if sink.isCongested, sink.queuedByteCount < 16 * 1024 { stillCongestedAtOrAboveLow = false }
      if !loop.isHoldingBackOutput, releasedWith == nil { releasedWith = sink.queuedByteCount }
    }
    runLoop(loop) { releasedWith != nil }
    #expect(try #require(releasedWith) < 16 * 1024)
    #expect(stillCongestedAtOrAboveLow)
    #expect(!sink.isCongested)
  }

  @Test func aClosedReaderFailsTheSinkOnceAndSaysSoOnALaterTurn() throws {
    signal(SIGPIPE, SIG_IGN)
    let loop = EventLoop()
    let pipe = try TestPipe()
    pipe.closeReadEnd()
    var failures: [Int32] = []
    let sink = OutputSink(fileDescriptor: pipe.writeEnd, loop: loop) { failures.append($0) }
    sink.write("nobody reads this\n")
    sink.write(pattern(20_000))  // past the capacity: the line queued first is written, and fails
    #expect(sink.failure == EPIPE)
    #expect(sink.queuedByteCount == 0, "nothing is kept for a reader that has gone")
    #expect(failures.isEmpty, "never from inside a write")
    #expect(!sink.isDrained)
    sink.write("dropped\n")
    sink.flush()
    runLoop(loop) { sink.isDrained }
    #expect(failures == [EPIPE])
  }

  @Test func aFullDiskFailsTheSinkOnce() throws {
    let loop = EventLoop()
    let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
    try #require(full >= 0)
    defer { close(full) }
    var failures: [Int32] = []
    let sink = OutputSink(fileDescriptor: full, lineBuffered: true, loop: loop) { failures.append($0) }
    #expect(sink.mode == .blocking)
    sink.write("one line\n")
    sink.write("another\n")
    runLoop(loop) { sink.isDrained }
    #expect(sink.failure == ENOSPC)
    #expect(failures == [ENOSPC])
  }

  @Test func aSocketIsWrittenWithSendAndItsDescriptionKeepsItsFlags() throws {
    let loop = EventLoop()
    var fds: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    defer { for fd in fds { close(fd) } }
    let sink = OutputSink(fileDescriptor: fds[0], loop: loop)
    #expect(sink.mode == .socket)
    let payload = pattern(2 << 20)
    sink.write(payload)
    #expect(sink.queuedByteCount > 0, "more than the socket buffers")
    #expect(fcntl(fds[0], F_GETFL) & O_NONBLOCK == 0)
    let received = collect(from: fds[1], on: loop, until: { $0.count == payload.count })
    #expect(received == payload)
  }

  @Test func aTerminalWhoseOutputIsStoppedIsWrittenWhenItStartsAgain() throws {
    let loop = EventLoop()
    let (master, terminal) = try openPseudoTerminal()
    defer { close(master) }
    defer { close(terminal) }
    var settings = termios()
    tcgetattr(terminal, &settings)
    cfmakeraw(&settings)
    tcsetattr(terminal, TCSANOW, &settings)
    let sink = OutputSink(fileDescriptor: terminal, loop: loop)
    #expect(sink.mode == .privateDescription)
    tcflow(terminal, TCOOFF)  // what Ctrl-S does
    sink.write("after the stop\n")
    sink.flush()
    #expect(sink.queuedByteCount == 15, "nothing passes a stopped terminal, and nothing blocks")
    loop.schedule(after: 0.05) { tcflow(terminal, TCOON) }
    let received = collect(from: master, on: loop, until: { $0.count == 15 })
    #expect(String(decoding: received, as: UTF8.self) == "after the stop\n")
  }

  @Test func aRegularFileIsWrittenBlocking() throws {
    var template = Array("/tmp/oprun-reporting-XXXXXX".utf8CString)
    let file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    try #require(file >= 0)
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    defer { close(file) }
    let sink = OutputSink(fileDescriptor: file, loop: EventLoop())
    #expect(sink.mode == .blocking)
  }
}

/// A pseudo-terminal's master and its terminal (Glibc's module lacks `posix_openpt`; the
/// ioctls are `TIOCSPTLCK` and `TIOCGPTN` as x86_64 and aarch64 number them).
func openPseudoTerminal() throws -> (master: Int32, terminal: Int32) {
  let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
  try #require(master >= 0)
  var unlock: Int32 = 0
  var number: Int32 = -1
  try #require(ioctl(master, UInt(0x4004_5431), &unlock) == 0 && ioctl(master, UInt(0x8004_5430), &number) == 0)
  let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
  try #require(terminal >= 0)
  return (master, terminal)
}

/// Bytes 0, 7, 14, … (mod 256): a pattern in which a lost or repeated piece shows.
func pattern(_ count: Int) -> [UInt8] {
  (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
}

/// Reads `fd` on `loop` until `done` holds for what arrived.
func collect(from fd: Int32, on loop: EventLoop, until done: @escaping ([UInt8]) -> Bool) -> [UInt8] {
  var received: [UInt8] = []
  var block = [UInt8](repeating: 0, count: 65_536)
  loop.watch(fd: fd) {
    let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count > 0 { received += block[0..<count] } else { loop.unwatch(fd: fd) }
  }
  runLoop(loop) { done(received) }
  loop.unwatch(fd: fd)
  return received
}
