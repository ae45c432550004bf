import Glibc
import OprunCore
import OprunRuntime
import Testing

@Suite struct ExecutionEventLoopTests {
  @Test func timersFireInDeadlineOrderThenSchedulingOrder() {
    let loop = EventLoop()
    var fired: [String] = []
    loop.schedule(after: 0.03) { fired.append("late") }
    loop.schedule(after: 0) { fired.append("first") }
    loop.schedule(after: 0) { fired.append("second") }
    loop.schedule(after: 0.01) { fired.append("middle") }
    #expect(!loop.run(until: { false }), "returns once nothing is left to wait for")
    #expect(fired == ["first", "second", "middle", "late"])
  }

  @Test func timersWaitAtLeastTheirDelay() throws {
    let loop = EventLoop()
    let start = loop.now()
    var firedAt: Double?
    loop.schedule(after: 0.05) { firedAt = loop.now() }
    loop.run { firedAt != nil }
    #expect(try #require(firedAt) - start >= 0.05)
  }

  @Test func cancelledTimerNeverFires() {
    let loop = EventLoop()
    var fired: [String] = []
    let cancelled = loop.schedule(after: 0) { fired.append("cancelled") }
    loop.schedule(after: 0.01) { fired.append("kept") }
    loop.cancelTimer(cancelled)
    loop.run { false }
    #expect(fired == ["kept"])
  }

  @Test func timerMayScheduleAndCancelOthers() {
    let loop = EventLoop()
    var fired: [Int] = []
    var doomed: TimerID?
    loop.schedule(after: 0) {
      fired.append(1)
      loop.schedule(after: 0) { fired.append(2) }
      doomed.map(loop.cancelTimer)
    }
    doomed = loop.schedule(after: 0.01) { fired.append(3) }
    loop.run { false }
    #expect(fired == [1, 2])
  }

  @Test func watchedDescriptorCallsBackUntilUnwatched() throws {
    let loop = EventLoop()
    var fds: [Int32] = [-1, -1]
    try #require(pipe(&fds) == 0)
    defer { close(fds[0]) }
    var received: [UInt8] = []
    loop.watch(fd: fds[0]) {
      var byte: UInt8 = 0
      if read(fds[0], &byte, 1) == 1 { received.append(byte) } else { loop.unwatch(fd: fds[0]) }
    }
    #expect(loop.isWatching(fd: fds[0]))
    for byte: UInt8 in [1, 2, 3] { _ = withUnsafeBytes(of: byte) { write(fds[1], $0.baseAddress, 1) } }
    close(fds[1])
    #expect(!loop.run(until: { false }))
    #expect(received == [1, 2, 3])
    #expect(!loop.isWatching(fd: fds[0]))
  }

  @Test func conditionIsCheckedBeforeWaiting() {
    let loop = EventLoop()
    var fired = false
    loop.schedule(after: 3600) { fired = true }
    #expect(loop.run(until: { true }))
    #expect(!fired)
  }

  @Test func manyChildrenAreEachReapedOnce() throws {
    let loop = EventLoop()
    let spawner = Spawner()
    var records: [ChildRecord] = []
    for index in 0..<50 {
      records.append(try startChild("echo \(index); exit \(index % 7)", loop: loop, spawner: spawner).1)
    }
    runLoop(loop) { records.allSatisfy { $0.termination != nil } }
    for (index, record) in records.enumerated() {
      #expect(record.termination == .exited(Int32(index % 7)))
      #expect(record.lines(of: .stdout) == ["\(index)\n"])
    }
  }

  @Test func terminationDecodesWaitStatuses() throws {
    #expect(try runChild("exit 42").termination?.exitCode == 42)
    #expect(try runChild("kill -KILL $$").termination?.signal == SIGKILL)
  }
}
