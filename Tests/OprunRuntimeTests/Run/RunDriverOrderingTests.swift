import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// The driver's ordering rules (docs/ARCHITECTURE.md): one delivery at a time, a command
/// from inside a delivery waits its turn, and nobody but the driver starts jobs.
@Suite struct RunDriverOrderingTests {
  /// An observer that asks for a change while it is being notified.
  final class Interrupting: RunObserver {
    let driver: RunDriver
    let trigger: (RunEvent.Kind) -> Bool
    var fired = false

    init(driver: RunDriver, when trigger: @escaping (RunEvent.Kind) -> Bool) {
      self.driver = driver
      self.trigger = trigger
    }

    func observe(_ event: RunEvent) {
      guard !fired, trigger(event.kind) else { return }
      fired = true
      driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    }
  }

  @Test func commandAppliedDuringADeliveryWaitsUntilEveryObserverHasSeenTheEvent() {
    let run = DriverHarness("jobs: {a: {command: build}, b: {command: test}}")
    let interrupting = Interrupting(driver: run.driver) { kind in
      if case .transition(let transition) = kind { return transition.to == .executing }
      return false
    }
    // Added after the harness's recorder: the recorder sees the executing transition
    // first, and then (not in between) the cancellation the interrupting observer asked for.
    let late = RecordedEvents()
    late.graph = run.graph
    run.driver.addObserver(interrupting)
    run.driver.addObserver(late)
    run.start()
    #expect(interrupting.fired)
    #expect(late.lines.prefix(3) == ["run-started", "a pending>ready", "b pending>ready"])
    let executing = late.lines.firstIndex(of: "a ready>executing")!
    #expect(late.lines[executing + 1] == "cancelling \(SIGINT) 2 jobs [a] grace 5.0")
    #expect(late.lines[executing + 2] == "a cancelled interrupt")
    #expect(run.events.lines == late.lines)
    #expect(run.runToEnd() == 128 + SIGINT)
    #expect(run.events.lines(of: "b").last == "b ready>finished cancelled")
  }

  @Test func resumingAQueueStartsItsReadyJobsWithoutAnyoneAsking() {
    let run = DriverHarness("jobs: {a: {command: build}}")
    run.driver.apply(.toggleSuspension)
    run.start()
    #expect(run.backend.orders.isEmpty)
    run.driver.apply(.toggleSuspension)
    #expect(run.backend.orders.map(\.commands) == [["build"]])
    #expect(run.runToEnd() == 0)
  }

  @Test func jobsFreedByAnExitStartWithinTheSameReport() {
    let run = DriverHarness("max-concurrent: 1\njobs: {a: {command: one}, b: {command: two}}")
    run.start()
    #expect(run.backend.running == ["one"])
    run.advance(by: 1)
    #expect(run.backend.running == ["two"])
  }
}
