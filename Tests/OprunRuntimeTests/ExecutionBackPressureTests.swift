import Glibc
import OprunCore
import OprunRuntime
import Testing

/// The event loop's writable watches and its holding back of job output.
@Suite struct ExecutionBackPressureTests {
  @Test func writableWatchFiresOnlyOnceAFullPipeHasRoom() throws {
    let loop = EventLoop()
    let pipe = try TestPipe(nonBlockingWriteEnd: true)
    let filled = pipe.fill()
    var happened: [String] = []
    loop.watchWritable(fd: pipe.writeEnd) {
      happened.append("writable")
      loop.unwatchWritable(fd: pipe.writeEnd)
    }
    loop.schedule(after: 0.05) {
      happened.append("drained")
      pipe.drain(filled)
    }
    runLoop(loop) { happened.contains("writable") }
    #expect(happened == ["drained", "writable"])
  }

  @Test func heldBackReadsWaitWhileTimersAndOtherReadsAreServed() throws {
    let loop = EventLoop()
    let output = try TestPipe()
    let control = try TestPipe()
    output.send("job output")
    control.send("signal")
    var happened: [String] = []
    loop.watch(fd: output.readEnd, .jobOutput) {
      happened.append("output")
      loop.unwatch(fd: output.readEnd)
    }
    loop.watch(fd: control.readEnd) {
      happened.append("control")
      loop.unwatch(fd: control.readEnd)
    }
    loop.holdBackOutput()
    #expect(loop.isHoldingBackOutput)
    loop.schedule(after: 0.01) { happened.append("timer") }
    runLoop(loop) { happened.contains("control") && happened.contains("timer") }
    #expect(!loop.run(until: { false }), "a held-back watch alone is nothing to wait for")
    #expect(!happened.contains("output"))

    loop.releaseOutput()
    #expect(!loop.isHoldingBackOutput)
    runLoop(loop) { happened.contains("output") }
    #expect(happened.last == "output")
  }

  @Test func holdingBackInACallbackStopsTheOutputWatchesReadyInTheSameTurn() throws {
    let loop = EventLoop()
    let pipes = try (0..<4).map { _ in try TestPipe() }
    var served = 0
    for pipe in pipes {
      pipe.send("x")
      loop.watch(fd: pipe.readEnd, .jobOutput) {
        served += 1
        loop.unwatch(fd: pipe.readEnd)
        loop.holdBackOutput()
      }
    }
    // Every pipe is readable before the first turn; the first callback holds the rest back.
    #expect(!loop.run(until: { false }))
    #expect(served == 1)
    for _ in 0..<served { loop.releaseOutput() }
    runLoop(loop) { served > 1 }
  }

  @Test func aJobsOutputIsHeldBackUntilReleasedAndNothingIsLost() throws {
    let loop = EventLoop()
    let (_, record) = try startChild("head -c 300000 /dev/zero | tr '\\0' x", loop: loop, framing: .chunks)
    loop.holdBackOutput()
    var released = false
    // The job blocks in its write with a full pipe; its exit cannot be what releases it.
    loop.schedule(after: 0.2) {
      released = true
      loop.releaseOutput()
    }
    runLoop(loop) { record.termination != nil }
    #expect(released)
    #expect(record.bytes(of: .stdout) == [UInt8](repeating: UInt8(ascii: "x"), count: 300_000))
  }
}

/// A pipe for a test, both ends closed when it goes.
final class TestPipe {
  private(set) var readEnd: Int32
  let writeEnd: Int32

  init(nonBlockingWriteEnd: Bool = false) throws {
    var fds: [Int32] = [-1, -1]
    try #require(pipe(&fds) == 0)
    readEnd = fds[0]
    writeEnd = fds[1]
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    if nonBlockingWriteEnd { _ = fcntl(writeEnd, F_SETFL, O_NONBLOCK) }
  }

  deinit {
    if readEnd >= 0 { close(readEnd) }
    close(writeEnd)
  }

  /// Makes the pipe hold 4 KiB (`F_SETPIPE_SZ`, which Glibc's module does not export).
  func shrink() {
    _ = fcntl(writeEnd, 1031, 4096)
  }

  func closeReadEnd() {
    close(readEnd)
    readEnd = -1
  }

  func send(_ text: String) {
    _ = Array(text.utf8).withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
  }

  /// Writes to the non-blocking write end until it is full; returns the byte count.
  func fill() -> Int {
    let block = [UInt8](repeating: 0, count: 4096)
    var total = 0
    while true {
      let count = block.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
      guard count > 0 else { return total }
      total += count
    }
  }

  /// Reads `count` bytes (or up to end of file), blocking.
  @discardableResult
  func drain(_ count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 65_536)
    while bytes.count < count {
      let got = block.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, min($0.count, count - bytes.count)) }
      guard got > 0 else { break }
      bytes += block[0..<got]
    }
    return bytes
  }
}
