import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// Requests on a real loop: a well-formed one reaches the run and its answer comes back;
/// anything else is answered with an error, closed, and never reaches the run.
@Suite struct ControlRequestTests {
  @Test func aRequestReachesTheRunWithItsPeerAndTheAnswerComesBackThenTheConnectionCloses() throws {
    let harness = try ChannelHarness()
    harness.answer = { _ in ControlAnswer(ok: true, data: Array(#""run":{"pid":1},"queues":[]"#.utf8)) }
    let answer = try harness.exchange(#"{"command": "cancel", "args": ["build", "tést"]}"# + "\n")

    #expect(answer == #"{"ok":true,"run":{"pid":1},"queues":[]}"# + "\n")
    let request = try #require(harness.requests.first)
    #expect(harness.requests.count == 1)
    #expect(request.command == "cancel")
    #expect(request.args == ["build", "tést"])
    #expect(request.peerUID == geteuid())
    #expect(request.peerPID == getpid())
    runLoop(harness.loop) { harness.channel.isDrained }
  }

  @Test func aRefusalCarriesItsReasonAndArgsMayBeLeftOut() throws {
    let harness = try ChannelHarness()
    harness.answer = { _ in .refused("no job 'x'") }
    #expect(try harness.exchange(#"{"command":"status"}"# + "\n") == refusal("no job 'x'"))
    #expect(harness.requests.map(\.args) == [[]])
  }

  @Test func anAnswerThatComesLaterIsWrittenWhenItComes() throws {
    let harness = try ChannelHarness()
    var pending: ControlReply?
    harness.answer = { _ in nil }
    let client = try harness.connect()
    client.send(#"{"command":"status","args":[]}"# + "\n")
    runLoop(harness.loop) { !harness.commands.isEmpty }
    if case .control(_, let reply) = harness.commands[0] { pending = reply }
    harness.loop.schedule(after: 0.05) { pending?.send(ControlAnswer(ok: true)) }
    runLoop(harness.loop) { client.isClosed }
    #expect(client.text == #"{"ok":true}"# + "\n")
  }

  @Test func whatFollowsTheRequestLineIsIgnored() throws {
    let harness = try ChannelHarness()
    let answer = try harness.exchange(#"{"command":"resume","args":[]}"# + "\n" + "more\n{\"command\":\"cancel\"}\n")
    #expect(answer == #"{"ok":true}"# + "\n")
    #expect(harness.requests.map(\.command) == ["resume"])
  }

  @Test func aClientThatHalfClosesAfterItsRequestStillGetsTheAnswer() throws {
    let harness = try ChannelHarness()
    let client = try harness.connect()
    client.send(#"{"command":"suspend","args":["main"]}"# + "\n")
    client.finishSending()
    runLoop(harness.loop) { client.isClosed }
    #expect(client.text == #"{"ok":true}"# + "\n")
  }

  static let malformed: [(String, [UInt8], String)] = [
    ("not JSON", Array("status\n".utf8), "the request is not JSON: unexpected character at byte 0"),
    ("empty line", [0x0A], "the request is not JSON: unexpected end of text at byte 0"),
    (
      "truncated JSON", Array(#"{"command":"status""#.utf8) + [0x0A],
      "the request is not JSON: unexpected end of text at byte 19"
    ),
    (
      "invalid UTF-8", Array(#"{"command":"cancel","args":[""#.utf8) + [0xFF, 0xFE] + Array(#""]}"#.utf8) + [0x0A],
      "the request is not JSON: invalid UTF-8 in a string at byte 28"
    ),
    ("a list", Array(#"["status"]"#.utf8) + [0x0A], shape),
    ("no command", Array(#"{"args":[]}"#.utf8) + [0x0A], shape),
    ("a number for command", Array(#"{"command":1}"#.utf8) + [0x0A], shape),
    ("args not a list", Array(#"{"command":"cancel","args":"build"}"#.utf8) + [0x0A], shape),
    ("a number among args", Array(#"{"command":"limit","args":["main",2]}"#.utf8) + [0x0A], shape),
    (
      "an extra member", Array(#"{"command":"status","args":[],"pid":3}"#.utf8) + [0x0A],
      "unknown member 'pid' in the request; " + shape
    ),
    (
      "a duplicate member", Array(#"{"command":"status","command":"cancel"}"#.utf8) + [0x0A],
      "the request is not JSON: duplicate key 'command' at byte 20"
    ),
    ("an unknown command", Array(#"{"command":"reboot","args":[]}"#.utf8) + [0x0A], "unknown command 'reboot'"),
    (
      "nested too deep", Array(#"{"command":"status","args":[[["x"]]]}"#.utf8) + [0x0A],
      "the request is not JSON: nested deeper than 3 at byte 29"
    ),
    (
      "a NUL byte", Array(#"{"command":"st"#.utf8) + [0] + Array(#"atus"}"#.utf8) + [0x0A],
      "the request is not JSON: control character in a string at byte 14"
    ),
  ]
  static let shape = #"a request is {"command": NAME, "args": [STRING, ...]}"#

  @Test(arguments: malformed.indices)
  func aMalformedRequestIsAnsweredWithAnErrorAndNeverReachesTheRun(_ index: Int) throws {
    let (name, line, reason) = Self.malformed[index]
    let harness = try ChannelHarness()
    #expect(try harness.exchange(line) == refusal(reason), "\(name)")
    #expect(harness.commands.isEmpty, "\(name)")
  }

  @Test func aRequestOfExactly64KiBIsReadAndOneByteMoreIsNot() throws {
    let harness = try ChannelHarness()
    let request = #"{"command":"status","args":[]}"#
    let padded = request + String(repeating: " ", count: ControlWire.maximumRequestLength - request.utf8.count)
    #expect(try harness.exchange(padded + "\n") == #"{"ok":true}"# + "\n")
    #expect(try harness.exchange(padded + " \n") == refusal("the request line is longer than 64 KiB"))
    #expect(harness.requests.count == 1)
  }

  @Test func aHangUpMidLineIsNoRequest() throws {
    let harness = try ChannelHarness()
    let client = try harness.connect()
    client.send(#"{"command":"cancel","args":["bui"#)
    runLoop(harness.loop) { client.isDoneSending && !harness.channel.isDrained }
    client.hangUp()
    runLoop(harness.loop) { harness.channel.isDrained }
    #expect(harness.commands.isEmpty)
  }

  @Test func aHalfCloseMidLineIsAnsweredWithAnError() throws {
    let harness = try ChannelHarness()
    let client = try harness.connect()
    client.send(#"{"command":"status","args":[]}"#)
    client.finishSending()
    runLoop(harness.loop) { client.isClosed }
    #expect(client.text == refusal("the request line ended without a newline"))
    #expect(harness.commands.isEmpty)
  }

  @Test func aClientThatConnectsAndLeavesIsForgotten() throws {
    let harness = try ChannelHarness()
    var client: TestClient? = try harness.connect()
    runLoop(harness.loop, checkingEvery: 0.01) { !harness.channel.isDrained }
    client = nil
    runLoop(harness.loop) { harness.channel.isDrained }
    #expect(client == nil && harness.commands.isEmpty)
  }
}
