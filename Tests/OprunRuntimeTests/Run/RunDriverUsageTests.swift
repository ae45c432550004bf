import OprunCore
import Testing

@testable import OprunRuntime

/// What jobs used (SPEC §12), as the driver puts it in their transitions: a retry carries its
/// attempt's figures, `finished` every attempt's together.
@Suite struct RunDriverUsageTests {
  static func used(_ cpu: Double, _ megabytes: Int) -> ResourceUsage {
    ResourceUsage(cpuSeconds: cpu, peakMemory: megabytes << 20, source: .process)
  }

  @Test func concurrentCommandsAddTheirCPUAndTheLargestPeakIsTheJobs() {
    let run = DriverHarness("jobs: {a: {commands: [one, two]}}")
    run.backend.scripts["one"] = FakeCommand(usage: Self.used(1, 100))
    run.backend.scripts["two"] = FakeCommand(usage: Self.used(0.5, 300))
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(run.events.transitions(of: "a").last?.usage == Self.used(1.5, 300))
  }

  @Test func aRetryCarriesItsAttemptsFiguresAndFinishedEveryAttemptsTogether() {
    let run = DriverHarness("jobs: {a: {commands: [compile, index], retries: 1}}")
    run.backend.nextScripts["compile"] = [FakeCommand(termination: .exited(1), usage: Self.used(1, 100))]
    run.backend.scripts["compile"] = FakeCommand(usage: Self.used(2, 50))
    run.backend.scripts["index"] = FakeCommand(usage: Self.used(0.5, 300))
    run.start()
    #expect(run.runToEnd() == 0)
    let transitions = run.events.transitions(of: "a")
    let retry = transitions.first { $0.from == .executing && $0.to == .ready }
    #expect(retry?.usage == Self.used(1.5, 300))
    #expect(transitions.last?.to == .finished)
    #expect(transitions.last?.usage == Self.used(4, 300))
    #expect(!transitions.contains { $0.to == .executing && $0.usage != nil })
  }

  @Test func aJobThatNeverRanCarriesNoFigures() {
    let run = DriverHarness("jobs: {a: {command: fails}, b: {command: later, dependencies: [a]}}")
    run.backend.scripts["fails"] = FakeCommand(termination: .exited(1), usage: Self.used(1, 1))
    run.start()
    #expect(run.runToEnd() == 1)
    #expect(run.events.transitions(of: "b").last?.usage == nil)
    #expect(run.events.transitions(of: "a").last?.usage == Self.used(1, 1))
  }
}
