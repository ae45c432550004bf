import OprunCore
import Testing

@testable import OprunRuntime

/// The driver on a fake backend: what every run does, whatever runs its jobs.
@Suite struct RunDriverLifecycleTests {
  @Test func everyJobRunsItsCommandsAndFinishes() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
      """)
    run.start()
    #expect(run.runToEnd() == 0)
    #expect(
      run.events.lines == [
        "run-started", "a pending>ready", "a ready>executing", "a executing>finished succeeded", "b pending>ready",
        "b ready>executing", "b executing>finished succeeded", "run-finished 0",
      ])
    #expect(run.backend.orders.map(\.commands) == [["build"], ["test"]])
    #expect(run.backend.runEnded)
  }

  @Test func executingTransitionCarriesTheBackendsIdsInCommandOrder() {
    let run = DriverHarness("jobs: {a: {commands: [one, two, three]}}")
    run.start()
    let executing = run.events.transitions(of: "a").first { $0.to == .executing }
    let handles = ["one", "two", "three"].map { run.backend.handle(of: $0)!.id }
    #expect(executing?.pids == handles)
  }

  @Test func finishedTransitionCarriesHowTheDecidingCommandEnded() {
    let run = DriverHarness("jobs: {a: {command: build}}")
    run.backend.scripts["build"] = FakeCommand(duration: 2.5, termination: .exited(3))
    run.start()
    #expect(run.runToEnd() == 1)
    let finished = run.events.transitions(of: "a").last!
    #expect(finished.outcome == .failed)
    #expect(finished.termination == .exited(3))
    #expect(finished.duration == 2.5)
  }

  @Test func jobOutputIsPublishedAsTheJobs() {
    let run = DriverHarness("jobs: {a: {command: build}}")
    run.backend.scripts["build"] = FakeCommand(output: ["compiling", "linking"])
    run.start()
    run.runToEnd()
    #expect(run.events.lines(of: "a").contains("a output compiling"))
    #expect(run.events.lines(of: "a").contains("a output linking"))
  }

  @Test func commandsGetTheJobsEnvironmentAndFolder() {
    let run = DriverHarness(
      """
      env: {CC: clang}
      queues: {net: {max-concurrent: 1}}
      jobs:
        a: {command: build, queue: net, env: {MODE: fast}, cwd: src}
      """)
    run.start()
    let order = run.backend.orders[0]
    #expect(order.workingDirectory == "/work/src")
    let environment = Dictionary(order.environment.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
    #expect(environment["CC"] == "clang")
    #expect(environment["MODE"] == "fast")
    #expect(environment["OPRUN_JOB"] == "a")
    #expect(environment["OPRUN_QUEUE"] == "net")
    #expect(environment["OPRUN_ATTEMPT"] == "1")
  }

  @Test func everyEventIsDeliveredBeforeWhatItCausesHappens() {
    // The completion of a starts only after a's finished transition has reached every
    // observer, and after the engine's own consequences of it (b becoming ready).
    let run = DriverHarness(
      """
      jobs:
        a: {command: build, completion: notify}
        b: {command: test, dependencies: [a]}
      """)
    run.start()
    run.runToEnd()
    let lines = run.events.lines
    let finished = lines.firstIndex(of: "a executing>finished succeeded")!
    let completion = lines.firstIndex(of: "a completion-started")!
    let ready = lines.firstIndex(of: "b pending>ready")!
    let executing = lines.firstIndex(of: "b ready>executing")!
    #expect(finished < ready && ready < completion && completion < executing)
  }
}
