import Testing

@testable import OprunCore

@Suite struct RecordedRunTests {
  static let finishedRun = """
    {"t":0.001,"event":"run-started","queues":{"ci":2,"net":1},"jobs":3,"run":"20261125-101010-ab12"}
    {"t":0.002,"event":"transition","job":"build","queue":"ci","from":"pending","to":"ready","attempt":1}
    {"t":0.002,"event":"transition","job":"test","queue":"ci","from":"pending","to":"pending","attempt":1}
    {"t":0.003,"event":"transition","job":"build","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[41]}
    {"t":0.5,"event":"transition","job":"build","queue":"ci","from":"executing","to":"ready","attempt":1,"exit_code":1,"signal":null}
    {"t":0.6,"event":"transition","job":"build","queue":"ci","from":"ready","to":"executing","attempt":2,"pids":[42,43]}
    {"t":1.5,"event":"transition","job":"build","queue":"ci","from":"executing","to":"finished","attempt":2,"outcome":"succeeded","exit_code":0,"signal":null,"duration":0.9}
    {"t":1.6,"event":"queue","queue":"net","state":"suspended"}
    {"t":1.65,"event":"transition","job":"test","queue":"ci","from":"pending","to":"ready","attempt":1,"after":"build"}
    {"t":1.7,"event":"cancelled","job":"test","reason":"control"}
    {"t":1.8,"event":"transition","job":"test","queue":"ci","from":"ready","to":"finished","attempt":1,"outcome":"cancelled","exit_code":null,"signal":null,"duration":0}
    {"t":1.9,"event":"queue","queue":"net","state":"resumed"}
    {"t":2.0,"event":"completion","job":"test","exit_code":0,"signal":null}
    {"t":2.1,"event":"run-finished","exit_code":1,"counts":{"succeeded":1,"failed":0,"cancelled":1,"skipped":0,"timed-out":0}}

    """

  @Test func aFailedJobKeepsItsLastOutputLinesAndASucceededJobNone() throws {
    var lines = [
      #"{"t":0,"event":"run-started","queues":{"ci":1},"jobs":2,"run":"r"}"#,
      #"{"t":0.1,"event":"output","job":"build","stream":"stdout","text":"compiled\n"}"#,
      #"{"t":0.2,"event":"transition","job":"build","queue":"ci","from":"executing","to":"finished","outcome":"succeeded","exit_code":0,"signal":null,"duration":0.1}"#,
    ]
    lines += (1...60).map { #"{"t":0.3,"event":"output","job":"test","stream":"stdout","text":"line \#($0)\n"}"# }
    lines.append(
      #"{"t":0.4,"event":"transition","job":"test","queue":"ci","from":"executing","to":"finished","outcome":"failed","exit_code":4,"signal":null,"duration":0.2}"#
    )
    let run = RecordedRun(eventLines: Array(lines.joined(separator: "\n").utf8))
    #expect(run.outputEventCount == 61)
    #expect(Array(run.failureOutput.keys) == [1])
    let tail = try #require(run.failureOutput[1])
    #expect(tail.lines.map { String(decoding: $0, as: UTF8.self) } == (11...60).map { "line \($0)" })
    #expect(tail.totalLines == 60)
    #expect(RecordedRun(eventLines: Array(Self.finishedRun.utf8)).outputEventCount == 0)
  }

  @Test func aFinishedRunReadsBackEveryJobsAttemptsOutcomeAndTheQueuesSuspensions() throws {
    let run = RecordedRun(eventLines: Array(Self.finishedRun.utf8))
    #expect(run.run == "20261125-101010-ab12")
    #expect(run.queues.map(\.name) == ["ci", "net"])
    #expect(run.queues.map(\.maxConcurrent) == [2, 1])
    #expect(run.jobs.map(\.name) == ["build", "test"])
    let build = try #require(run.job(named: "build"))
    #expect(build.attempts.count == 2)
    #expect(build.attempts[0] == .init(number: 1, start: 0.003, end: 0.5, pids: [41], exitCode: 1, signal: nil))
    #expect(build.attempts[1].pids == [42, 43] && build.attempts[1].end == 1.5)
    #expect(build.outcome == .succeeded && build.duration == 0.9 && build.started == 0.003)
    let test = try #require(run.job(named: "test"))
    #expect(test.outcome == .cancelled && test.attempts.isEmpty)
    #expect(test.cancelled?.reason == .control && test.cancelled?.time == 1.7)
    #expect(test.completion?.exitCode == 0)
    #expect(test.after == "build" && build.after == nil)
    #expect(run.queues[1].suspensions == [.init(start: 1.6, end: 1.9)])
    #expect(run.isComplete && run.exitCode == 1 && run.counts[.cancelled] == 1)
    #expect(run.end == 2.1 && run.unreadableLines.isEmpty && run.eventCount == 14)
  }

  @Test func aStreamCutOffMidLineKeepsWhatCameBeforeAndLeavesTheRunningAttemptOpen() throws {
    let lines = Self.finishedRun.split(separator: "\n").prefix(6).joined(separator: "\n")
    let run = RecordedRun(eventLines: Array((lines + "\n{\"t\":0.7,\"event\":\"tra").utf8))
    #expect(!run.isComplete)
    #expect(run.unreadableLines == [7])
    let build = try #require(run.job(named: "build"))
    #expect(build.outcome == nil && build.attempts.last?.end == nil)
    #expect(run.end == 0.6)
  }

  @Test func linesThatAreNoEventsAreCountedAndSkipped() {
    let run = RecordedRun(
      eventLines: Array("not json\n{\"t\":1}\n\n[1,2]\n{\"t\":0.5,\"event\":\"warning\",\"message\":\"w\"}\n".utf8))
    #expect(run.unreadableLines == [1, 2, 4])
    #expect(run.warnings == ["w"] && run.eventCount == 1)
    #expect(run.jobs.isEmpty)
  }
}
