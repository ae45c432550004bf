import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// Clients that say nothing, trickle, flood or crowd the channel: each is answered and
/// closed within its bounds while the loop goes on serving everyone else.
@Suite struct ControlHostileClientTests {
  static var shortLimits: ControlLimits {
    var limits = ControlLimits()
    limits.requestTimeout = 0.3
    limits.answerTimeout = 0.3
    return limits
  }

  @Test func aSilentClientIsAnsweredAndClosedAfterTheRequestTimeoutWhileOthersAreServed() throws {
    let harness = try ChannelHarness(limits: Self.shortLimits)
    let silent = try harness.connect()
    let start = harness.loop.now()
    #expect(try harness.exchange(#"{"command":"status","args":[]}"# + "\n") == #"{"ok":true}"# + "\n")
    #expect(!silent.isClosed)
    runLoop(harness.loop) { silent.isClosed }
    #expect(harness.loop.now() - start >= 0.3)
    #expect(silent.text == refusal("no request line within 0.3 s"))
    #expect(harness.requests.count == 1)
  }

  @Test func aTricklingClientIsCutOffAtTheRequestTimeout() throws {
    let harness = try ChannelHarness(limits: Self.shortLimits)
    let trickler = try harness.connect()
    let request = Array(#"{"command":"status","args":[]}"#.utf8)
    var sent = 0
    func trickle() {
      guard sent < request.count, !trickler.isClosed else { return }
      trickler.send([request[sent]])
      sent += 1
      harness.loop.schedule(after: 0.02) { trickle() }
    }
    trickle()
    runLoop(harness.loop) { trickler.isClosed }
    #expect(trickler.text == refusal("no request line within 0.3 s"))
    #expect(sent < request.count)
    #expect(harness.commands.isEmpty)
  }

  @Test func aClientSendingTenMegabytesIsRefusedAfter64KiBAndTheLoopServesOthersMeanwhile() throws {
    let harness = try ChannelHarness()
    let flood = try harness.connect()
    flood.send([UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20))
    #expect(try harness.exchange(#"{"command":"status","args":[]}"# + "\n") == #"{"ok":true}"# + "\n")
    runLoop(harness.loop) { flood.isClosed }
    #expect(flood.text == refusal("the request line is longer than 64 KiB"))
    // The channel stopped reading: most of the ten megabytes never left the client.
    runLoop(harness.loop) { flood.isDoneSending }
    #expect(flood.sendFailed)
    #expect(harness.requests.count == 1)
  }

  @Test func connectionsBeyondTheLimitAreAnsweredBusyAndClosed() throws {
    var limits = ControlLimits()
    limits.pendingConnections = 2
    let harness = try ChannelHarness(limits: limits)
    let first = try harness.connect()
    let second = try harness.connect()
    runLoop(harness.loop, checkingEvery: 0.01) { harness.channel.connectionCount == 2 }
    let third = try harness.connect()
    runLoop(harness.loop) { third.isClosed }
    #expect(third.text == refusal("busy: too many connections"))
    #expect(!first.isClosed && !second.isClosed)
    first.send(#"{"command":"status"}"# + "\n")
    runLoop(harness.loop) { first.isClosed }
    #expect(first.text == #"{"ok":true}"# + "\n")
  }

  @Test func anAnswerTheClientNeverTakesIsDroppedAfterTheAnswerTimeout() throws {
    let harness = try ChannelHarness(limits: Self.shortLimits)
    let big = [UInt8](repeating: UInt8(ascii: "a"), count: 4 << 20)
    harness.answer = { _ in ControlAnswer(ok: true, data: Array(#""blob":""#.utf8) + big + [UInt8(ascii: "\"")]) }
    let client = try harness.connect(reading: false)
    client.send(#"{"command":"status"}"# + "\n")
    runLoop(harness.loop) { harness.requests.count == 1 }
    #expect(!harness.channel.isDrained)
    runLoop(harness.loop) { harness.channel.isDrained }
  }

  @Test func aRequestTheRunNeverAnswersIsRefusedAfterTheAnswerTimeout() throws {
    let harness = try ChannelHarness(limits: Self.shortLimits)
    harness.answer = { _ in nil }
    #expect(try harness.exchange(#"{"command":"status"}"# + "\n") == refusal("the run did not answer"))
    runLoop(harness.loop) { harness.channel.isDrained }
  }

  @Test func onlyTheRunsOwnUserAndRootAreServed() {
    #expect(ControlChannel.serves(peer: 1000, runUID: 1000))
    #expect(ControlChannel.serves(peer: 0, runUID: 1000))
    #expect(!ControlChannel.serves(peer: 1001, runUID: 1000))
    #expect(!ControlChannel.serves(peer: 65534, runUID: 0))
  }

  /// A process of another user (uid 65534, through `setpriv`) is closed unread and
  /// reported; the folder and socket are opened up on purpose so that it can connect.
  @Test func aPeerOfAnotherUserIsRefusedUnreadAndReported() throws {
    try #require(geteuid() == 0, "changing uid takes root")
    let harness = try ChannelHarness()
    chmod(harness.parent, 0o755)
    chmod(harness.folder, 0o755)
    chmod(harness.channel.path, 0o666)
    let script = """
      import socket, sys
      s = socket.socket(socket.AF_UNIX)
      s.connect(sys.argv[1])
      try:
          s.sendall(b'{"command":"cancel-all","args":[]}\\n')
          print("received", len(s.recv(100)))
      except OSError as error:
          print("refused", error.errno)
      """
    let scriptPath = harness.parent + "/client.py"
    try script.write(toFile: scriptPath, atomically: false, encoding: .utf8)
    chmod(scriptPath, 0o644)
    let command =
      "exec setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 \(scriptPath) \(harness.channel.path)"
    let (_, record) = try startChild(command, loop: harness.loop)
    runLoop(harness.loop) { record.termination != nil }

    #expect(record.termination == .exited(0), "stderr: \(record.text(of: .stderr)) out: \(record.text(of: .stdout))")
    // Closed unread: end of file, or a reset or broken pipe for what it sent.
    #expect(["received 0\n", "refused 104\n", "refused 32\n"].contains(record.text(of: .stdout)))
    #expect(harness.requests.isEmpty)
    guard case .controlRefused(let uid, let pid) = try #require(harness.commands.first) else {
      Issue.record("not a refusal: \(harness.commands)")
      return
    }
    #expect(uid == 65534)
    #expect(pid > 0)
    #expect(harness.commands.count == 1)
  }
}
