import OprunCore
import Testing

@testable import OprunRuntime

/// What a job's attempts used, carried by its transitions: a retry carries its attempt's
/// figures, `finished` every attempt's together, and nothing is kept once the job finished.
@Suite struct UsageTableTests {
  private func usage(cpu: Double, peak: Int) -> ResourceUsage {
    ResourceUsage(cpuSeconds: cpu, peakMemory: peak, source: .process)
  }

  private func transition(_ job: JobID, _ from: JobState, _ to: JobState) -> Transition {
    Transition(job: job, queue: 0, from: from, to: to)
  }

  @Test func aRetryCarriesItsAttemptAndFinishedCarriesEveryAttemptTogether() {
    var table = UsageTable()
    table.attemptEnded(3, using: usage(cpu: 1.5, peak: 100))
    #expect(table.usage(for: transition(3, .executing, .ready)) == usage(cpu: 1.5, peak: 100))
    table.attemptEnded(3, using: usage(cpu: 0.5, peak: 300))
    #expect(table.usage(for: transition(3, .executing, .ready)) == usage(cpu: 0.5, peak: 300))
    #expect(table.usage(for: transition(3, .executing, .finished)) == usage(cpu: 2.0, peak: 300))
  }

  @Test func aJobsFiguresAreForgottenOnceItFinished() {
    var table = UsageTable()
    table.attemptEnded(0, using: usage(cpu: 1, peak: 10))
    table.attemptEnded(1, using: usage(cpu: 2, peak: 20))
    #expect(table.usage(for: transition(0, .executing, .finished)) != nil)
    #expect(table.usage(for: transition(0, .executing, .finished)) == nil)
    #expect(table.usage(for: transition(0, .executing, .ready)) == nil)
    // A job retried, then cancelled while ready, finishes without carrying figures, and they go.
    #expect(table.usage(for: transition(1, .ready, .finished)) == nil)
    #expect(table.usage(for: transition(1, .executing, .finished)) == nil)
  }

  @Test func transitionsThatDoNotLeaveExecutingCarryNothing() {
    var table = UsageTable()
    table.attemptEnded(2, using: usage(cpu: 1, peak: 10))
    #expect(table.usage(for: transition(2, .pending, .ready)) == nil)
    #expect(table.usage(for: transition(2, .ready, .executing)) == nil)
    #expect(table.usage(for: transition(2, .executing, .finished)) == usage(cpu: 1, peak: 10))
  }
}
