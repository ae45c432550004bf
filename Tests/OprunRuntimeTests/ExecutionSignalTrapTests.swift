import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// The trap changes process-wide signal actions: these tests run one at a time
/// and never send a signal to the test process; they run the recording
/// handler directly, as the kernel would.
@Suite(.serialized) struct ExecutionSignalTrapTests {
  @Test func recordedSignalsReachTheCallbackOnTheLoop() throws {
    let loop = EventLoop()
    var received: [Int32] = []
    let trap = try SignalTrap(loop: loop) { received.append($0) }
    defer { trap.uninstall() }
    SignalTrap.recordAsIfDelivered(SIGUSR1)
    SignalTrap.recordAsIfDelivered(SIGINT)
    runLoop(loop) { received.count == 2 }
    #expect(received == [SIGUSR1, SIGINT])
  }

  @Test func installingTrapsTheSignalsAndIgnoresSIGPIPE() throws {
    let loop = EventLoop()
    let trap = try SignalTrap(loop: loop) { _ in }
    defer { trap.uninstall() }
    for signal in SignalTrap.defaultSignals {
      #expect(SignalDisposition(of: signal) == .recorded, "signal \(signal)")
    }
    #expect(SignalDisposition(of: SIGPIPE) == .ignored)
    #expect(SignalDisposition(of: SIGCHLD) == .default)
  }

  @Test func uninstallRestoresEveryAction() throws {
    let signals = SignalTrap.defaultSignals + [SIGPIPE, SIGCHLD]
    let before = signals.map { SignalDisposition(of: $0) }
    let loop = EventLoop()
    let trap = try SignalTrap(loop: loop) { _ in }
    trap.uninstall()
    #expect(signals.map { SignalDisposition(of: $0) } == before)
    #expect(!loop.run(until: { false }), "the trap's pipe is no longer watched")
  }

  @Test func signalIgnoredAtStartStaysIgnored() throws {
    let previous = signal(SIGHUP, SIG_IGN)
    defer { signal(SIGHUP, previous) }
    let loop = EventLoop()
    let trap = try SignalTrap(loop: loop) { _ in }
    #expect(!trap.trappedSignals.contains(SIGHUP))
    #expect(trap.trappedSignals.contains(SIGTERM))
    #expect(SignalDisposition(of: SIGHUP) == .ignored)
    trap.uninstall()
    #expect(SignalDisposition(of: SIGHUP) == .ignored)
  }

  @Test func onlyOneTrapAtATime() throws {
    let loop = EventLoop()
    let trap = try SignalTrap(loop: loop) { _ in }
    defer { trap.uninstall() }
    #expect(throws: SystemError.self) { try SignalTrap(loop: loop) { _ in } }
    #expect(SignalDisposition(of: SIGINT) == .recorded, "the refused trap changed nothing")
  }

  @Test func aSignalRecordedWhileNoTrapIsInstalledReachesNoLaterTrap() throws {
    let loop = EventLoop()
    var received: [Int32] = []
    let first = try SignalTrap(loop: loop) { received.append($0) }
    first.uninstall()
    SignalTrap.recordAsIfDelivered(SIGUSR1)
    let second = try SignalTrap(loop: loop) { received.append($0) }
    defer { second.uninstall() }
    SignalTrap.recordAsIfDelivered(SIGINT)
    runLoop(loop) { !received.isEmpty }
    // Signals arrive in the order recorded: a SIGUSR1 kept anywhere would have come first.
    #expect(received == [SIGINT])
  }
}
