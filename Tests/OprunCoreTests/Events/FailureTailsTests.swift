import OprunCore
import Testing

/// What is kept of a job's output for a failure: its last lines, and nothing of a success.
@Suite struct FailureTailsTests {
  private func lines(_ tail: OutputTail?) -> [String]? {
    tail?.lines.map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func aFailureKeepsItsLastLinesOverItsRetriesAndASuccessNone() {
    var tails = FailureTails(capacity: 3)
    for line in 1...4 { tails.record(Array("a\(line)\n".utf8), of: 0) }
    tails.record(Array("b1\n".utf8), of: 1)
    tails.finish(1, outcome: .succeeded)
    tails.record(Array("a5\n".utf8), of: 0)
    tails.finish(0, outcome: .timedOut)
    tails.record(Array("b2\n".utf8), of: 1)
    #expect(Array(tails.failures.keys) == [0])
    #expect(lines(tails.failures[0]) == ["a3", "a4", "a5"])
    #expect(tails.failures[0]?.totalLines == 5)
  }

  @Test func aTakenTailIsHandedOverOnceAndLaterOutputIsNotKept() {
    var tails = FailureTails(capacity: 50)
    tails.finish(0, outcome: .failed)
    tails.record(Array("late\n".utf8), of: 0)
    #expect(lines(tails.take(0)) == ["late"])
    tails.record(Array("later still\n".utf8), of: 0)
    #expect(tails.take(0) == nil)
    #expect(tails.failures.isEmpty)
    tails.finish(1, outcome: .cancelled)
    #expect(tails.take(1) == nil)
  }
}
