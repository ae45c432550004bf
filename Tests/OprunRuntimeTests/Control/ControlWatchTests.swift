import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// `watch`: the run's history, then each event live, as `--events` lines plus output lines;
/// a watcher that falls behind is dropped, and none ever slows the run.
@Suite struct ControlWatchTests {
  static let watchRequest = #"{"command":"watch","args":[]}"# + "\n"
  static let okLine = #"{"ok":true}"#

  /// The lines the one encoder makes of `events`, output included: what a watcher must see.
  static func encoded(_ events: [RunEvent], graph: JobGraph) -> [String] {
    var lines: [String] = []
    let writer = EventStreamWriter(graph: graph, includingOutput: true) { line in
      lines.append(String(decoding: line.dropLast(), as: UTF8.self))
    }
    writer.observe(events)
    return lines
  }

  /// Starts a watcher and runs the loop until the channel has attached it.
  private func attachWatcher(_ harness: ChannelHarness, reading: Bool = true) throws -> TestClient {
    let client = try harness.connect(reading: reading)
    let before = harness.requests.count
    client.send(Self.watchRequest)
    runLoop(harness.loop) { harness.requests.count > before }
    return client
  }

  @Test func aWatcherGetsTheHistoryThenEachNewEventThenIsClosedAtTheEnd() throws {
    let harness = try ChannelHarness()
    let before =
      [
        RunEvent(time: 0, .runStarted(queues: harness.graph.queues, jobs: 2, run: "r1", control: harness.channel.path))
      ] + lifecycle(0, start: 0.1, end: 0.5, pid: 41) + [output(1, "héllo \u{1B}[1m\n", at: 0.6)]
    let after =
      [output(1, "partial", stream: .stderr, at: 0.7)] + lifecycle(1, start: 0.6, end: 0.8, pid: 42) + [
        runFinished(exitCode: 0, counts: [.succeeded: 2], at: 0.9)
      ]
    harness.record(before)
    let watcher = try attachWatcher(harness)
    runLoop(harness.loop) { watcher.lines.count == 1 + Self.encoded(before, graph: harness.graph).count }
    harness.record(after)
    harness.channel.finish()
    runLoop(harness.loop) { watcher.isClosed }

    #expect(watcher.lines == [Self.okLine] + Self.encoded(before + after, graph: harness.graph))
    #expect(
      watcher.lines.contains(#"{"t":0.6,"event":"output","job":"test","stream":"stdout","text":"héllo \u001b[1m\n"}"#))
    runLoop(harness.loop) { harness.channel.isDrained }
  }

  @Test func eventsNobodyWatchesWaitUnencodedUntilAWatcherAttaches() throws {
    let harness = try ChannelHarness()
    let events = lifecycle(0, start: 0.1, end: 0.5, pid: 41) + [output(0, "done\n", at: 0.6)]
    harness.record(events)
    #expect(harness.channel.history.length == 0)
    let watcher = try attachWatcher(harness)
    let expected = Self.encoded(events, graph: harness.graph)
    #expect(harness.channel.history.length == expected.reduce(0) { $0 + $1.utf8.count + 1 })
    runLoop(harness.loop) { watcher.lines.count == 1 + expected.count }
    #expect(watcher.lines == [Self.okLine] + expected)
  }

  /// Output past the budget kept for no one is counted, not written: a late watcher reads
  /// where it was left out and how much, every other event, and all output once attached.
  @Test func outputNobodyWatchesPastItsBudgetIsCountedWhereItWasLeftOut() throws {
    var limits = ControlLimits()
    limits.unwatchedOutputLimit = 10
    let harness = try ChannelHarness(limits: limits)
    let kept = [output(0, "first\n", at: 0.1)]
    let leftOut = [output(0, "second\n", at: 0.2), output(1, "x\n", at: 0.3), output(0, "third\n", at: 0.4)]
    let after = lifecycle(0, start: 0.1, end: 0.5, pid: 41)
    harness.record(kept + leftOut + after)
    let watcher = try attachWatcher(harness)
    let watched = [output(1, "now watched, all of it\n", at: 0.6)]
    harness.record(watched)
    let expected =
      Self.encoded(kept, graph: harness.graph) + [
        #"{"t":0.2,"event":"output-skipped","job":"build","lines":2,"bytes":13}"#,
        #"{"t":0.3,"event":"output-skipped","job":"test","lines":1,"bytes":2}"#,
      ] + Self.encoded(after + watched, graph: harness.graph)
    runLoop(harness.loop) { watcher.lines.count == 1 + expected.count }
    #expect(watcher.lines == [Self.okLine] + expected)
  }

  @Test func aRefusedWatchIsOnlyAnAnswer() throws {
    let harness = try ChannelHarness()
    harness.answer = { _ in .refused("not now") }
    harness.record(lifecycle(0, start: 0, end: 1, pid: 7))
    #expect(try harness.exchange(Self.watchRequest) == refusal("not now"))
  }

  @Test func anyNumberOfWatchersEachGetEverything() throws {
    let harness = try ChannelHarness()
    let events = lifecycle(0, start: 0, end: 1, pid: 7) + lifecycle(1, start: 1, end: 2, pid: 8)
    harness.record(Array(events[0..<2]))
    let first = try attachWatcher(harness)
    harness.record(Array(events[2..<4]))
    let second = try attachWatcher(harness)
    harness.record(Array(events[4...]))
    harness.channel.finish()
    runLoop(harness.loop) { first.isClosed && second.isClosed }
    let expected = [Self.okLine] + Self.encoded(events, graph: harness.graph)
    #expect(first.lines == expected)
    #expect(second.lines == expected)
  }

  /// The real driver on a fake backend: a watcher attached mid-run sees exactly the lines of
  /// `--events`, in the same order, with output lines among them.
  @Test func aWatcherAttachedMidRunSeesEveryLineOfTheEventStreamInOrder() throws {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        a: {command: a}
        b: {command: b, dependencies: [a]}
        c: {command: c}
      """)
    let harness = try ChannelHarness(graph: run.graph)
    run.backend.scripts["a"] = FakeCommand(duration: 2, output: ["one", "two"])
    run.backend.scripts["b"] = FakeCommand(duration: 1, termination: .exited(3))
    let eventsFile = CapturedOutput()
    run.driver.addObserver(EventStreamWriter(graph: run.graph, sink: eventsFile.sink, includingOutput: true))
    run.driver.addObserver(harness.channel.recorder)
    run.start()
    run.advance(to: 1.5)
    let watcher = try attachWatcher(harness)
    run.runToEnd()
    harness.channel.finish()
    runLoop(harness.loop) { watcher.isClosed }

    let watched = watcher.lines.dropFirst()
    #expect(watcher.lines.first == Self.okLine)
    #expect(watched == eventsFile.lines[...])
    #expect(watched.filter { $0.contains(#""event":"output""#) }.count == 2)
    #expect(eventsFile.lines.last?.contains(#""event":"run-finished""#) == true)
  }

  @Test func aWatcherAttachingToALongHistoryIsNotDroppedForIt() throws {
    let harness = try ChannelHarness()
    let text = String(repeating: "x", count: 1000) + "\n"
    let events = (0..<12_000).map { output(0, text, at: Double($0) / 1000) }
    harness.record(events)
    #expect(harness.channel.history.length > 8 << 20)
    let watcher = try attachWatcher(harness)
    // More is recorded while it reads the history: the run goes on, and it is not dropped.
    let more = (0..<10).map { output(0, text, at: 12 + Double($0)) }
    harness.record(more)
    let expected = ([Self.okLine] + Self.encoded(events + more, graph: harness.graph)).reduce(0) {
      $0 + $1.utf8.count + 1
    }
    runLoop(harness.loop) { watcher.received.count >= expected || watcher.isClosed }
    harness.channel.finish()
    runLoop(harness.loop) { watcher.isClosed }
    #expect(watcher.lines.count == 1 + events.count + more.count)
    #expect(watcher.lines.last == Self.encoded([more.last!], graph: harness.graph)[0])
  }

  @Test func aWatcherThatFallsEightMiBBehindIsDroppedWhileTheLoopGoesOnServing() throws {
    let harness = try ChannelHarness()
    let slow = try attachWatcher(harness, reading: false)
    let text = String(repeating: "y", count: 60_000) + "\n"
    var recorded = 0
    // Far more than the socket holds, and past the limit.
    while let connection = harness.channel.onlyWatcher, connection.phase == .watching, recorded < 400 {
      harness.record([output(1, text, at: Double(recorded))])
      recorded += 1
      // A watcher holds about one chunk of history, never the backlog.
      #expect((connection.sink?.queuedByteCount ?? 0) <= harness.channel.limits.watchChunk + text.utf8.count + 100)
    }
    #expect(recorded > (8 << 20) / 60_000)
    #expect(recorded < 400)

    // The run goes on: events are recorded and other clients served meanwhile.
    harness.record([output(0, "after\n", at: 999)])
    #expect(try harness.exchange(#"{"command":"status"}"# + "\n") == Self.okLine + "\n")

    slow.startReading()
    runLoop(harness.loop) { slow.isClosed }
    let lines = slow.lines
    #expect(lines.first == Self.okLine)
    #expect(lines.last == #"{"event":"watch-dropped"}"#)
    let sent = lines.dropFirst().dropLast()
    #expect(!sent.isEmpty && sent.count < recorded)
    #expect(sent.allSatisfy { (try? JSONValue.parse($0).get())?["event"]?.stringValue == "output" })
  }

  @Test func aWatcherThatHangsUpIsForgotten() throws {
    let harness = try ChannelHarness()
    let watcher = try attachWatcher(harness)
    runLoop(harness.loop) { watcher.lines.count == 1 }
    watcher.hangUp()
    harness.record(lifecycle(0, start: 0, end: 1, pid: 9))
    runLoop(harness.loop) { harness.channel.isDrained }
  }

  /// The run ends without waiting: a watcher that reads nothing is closed by `finish()`, and
  /// when it reads, it gets whole lines, then `watch-dropped`.
  @Test func aWatcherThatDoesNotTakeTheEndIsDroppedAndTheRunDoesNotWaitForIt() throws {
    let harness = try ChannelHarness()
    let watcher = try attachWatcher(harness, reading: false)
    let events = (0..<40).map { output(0, String(repeating: "z", count: 50_000) + "\n", at: Double($0)) }
    harness.record(events)
    harness.channel.finish()
    #expect(harness.channel.isDrained)

    watcher.startReading()
    runLoop(harness.loop) { watcher.isClosed }
    let lines = watcher.lines
    #expect(lines.first == Self.okLine)
    #expect(lines.last == #"{"event":"watch-dropped"}"#)
    let sent = Array(lines.dropFirst().dropLast())
    #expect(!sent.isEmpty && sent.count < events.count)
    #expect(sent == Array(Self.encoded(events, graph: harness.graph).prefix(sent.count)))
  }

  /// A watcher a little behind at the end, its socket full, still gets the end whole: it goes
  /// past the full socket at once.
  @Test func aWatcherAChunkBehindAtTheEndGetsAllOfIt() throws {
    let harness = try ChannelHarness()
    let watcher = try attachWatcher(harness, reading: false)
    // Lines until the socket takes no more and a chunk waits in the sink.
    var events: [RunEvent] = []
    while harness.channel.onlyWatcher?.sink?.queuedByteCount ?? 0 == 0, events.count < 1_000 {
      events.append(output(0, String(repeating: "c", count: 1_000) + "\n", at: Double(events.count)))
      harness.record([events.last!])
    }
    let end = [runFinished(exitCode: 0, counts: [:], at: 5_000)]
    harness.record(end)
    harness.channel.finish()
    #expect(harness.channel.isDrained)

    watcher.startReading()
    runLoop(harness.loop) { watcher.isClosed }
    #expect(watcher.lines == [Self.okLine] + Self.encoded(events + end, graph: harness.graph))
  }

  @Test func aHistoryPastItsLimitDropsWatchersAndRefusesNewOnesWhileRequestsAreStillServed() throws {
    var limits = ControlLimits()
    limits.historyLimit = 200_000
    let harness = try ChannelHarness(limits: limits)
    let watcher = try attachWatcher(harness)
    harness.record((0..<30).map { output(0, String(repeating: "h", count: 10_000) + "\n", at: Double($0)) })
    runLoop(harness.loop) { watcher.isClosed }
    #expect(watcher.lines.first == Self.okLine)
    #expect(watcher.lines.last == #"{"event":"watch-dropped"}"#)
    #expect(watcher.text.utf8.count < 200_000 + 100)

    #expect(
      try harness.exchange(Self.watchRequest)
        == refusal("the run's history for watchers is no longer kept: it has reached 0 MiB"))
    #expect(try harness.exchange(#"{"command":"status"}"# + "\n") == Self.okLine + "\n")
  }

  @Test func aHistoryNeedsNoFileUntilItOutgrowsMemoryAndThenSaysWhyItStopped() throws {
    let history = WatchHistory(in: ["/nonexistent-folder-for-a-history"])
    let line = Array(("{\"text\":\"" + String(repeating: "q", count: 1000) + "\"}\n").utf8)
    let fitting = WatchHistory.tailCapacity / line.count
    for _ in 0..<fitting { history.append(line) }
    #expect(history.failure == nil)
    #expect(try history.lines(from: (fitting - 1) * line.count, atMost: line.count).get() == line)

    history.append(line)
    history.append(line)
    #expect(history.failure?.hasPrefix("no temporary file can hold it") == true)
    #expect(history.length == fitting * line.count)
    #expect(try history.lines(from: 0, atMost: history.length).get().count == history.length)
  }

  @Test func theHistoryIsWholeLinesFromAnUnnamedFileAndHoldsLittleInMemory() throws {
    let history = WatchHistory()
    let short = Array("{\"n\":1}\n".utf8)
    let long = Array(("{\"text\":\"" + String(repeating: "q", count: 200_000) + "\"}\n").utf8)
    for _ in 0..<10_000 { history.append(short) }
    history.append(long)
    history.append(short)
    #expect(history.length == 10_001 * short.count + long.count)
    #expect(history.memoryHeld < WatchHistory.tailCapacity + long.count)

    let first = try history.lines(from: 0, atMost: 20).get()
    #expect(first == short + short)
    let atLong = 10_000 * short.count
    #expect(try history.lines(from: atLong, atMost: 1000).get() == long)
    #expect(try history.lines(from: atLong + long.count, atMost: 1000).get() == short)
    let everything = try history.lines(from: 0, atMost: history.length).get()
    #expect(everything.count == history.length)
  }
}

extension ControlChannel {
  /// The one connection open, when there is exactly one.
  var onlyWatcher: ControlConnection? {
    connectionCount == 1 ? connectionsForTests.first : nil
  }
}
