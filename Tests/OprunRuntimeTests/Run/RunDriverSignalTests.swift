import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// The signals oprun traps, as ``RunSession/handle(_:driver:stoppingSelf:)`` turns them into
/// commands, and what the driver does for the jobs' process groups (SPEC §3.4). That the
/// groups, the reaping and the ending by a signal really happen is tested end to end.
@Suite struct RunDriverSignalTests {
  /// "The first SIGINT or SIGTERM cancels every queue (`cancelAllOperations`)" … "so a
  /// calling shell sees 130 or 143"; SIGHUP ends a run as SIGTERM does, by its own number.
  @Test(arguments: [
    (SIGINT, CancelReason.interrupt, JobSignal.interrupt), (SIGTERM, .terminate, .terminate),
    (SIGHUP, .terminate, .terminate),
  ])
  func cancellingSignalCancelsTheRunAndEndsItBy128PlusItsNumber(
    signal: Int32, reason: CancelReason, passedOn: JobSignal
  ) {
    let run = DriverHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
      """)
    run.start()
    run.advance(by: 0.5)
    RunSession.handle(signal, driver: run.driver, stoppingSelf: {})
    #expect(
      run.events.lines.filter { $0.contains(" cancelled ") } == [
        "a cancelled \(reason.rawValue)", "b cancelled \(reason.rawValue)",
      ])
    #expect(run.backend.signalLines == ["build \(passedOn)@0.5"])
    #expect(run.runToEnd() == 128 + signal)
  }

  /// "SIGUSR1 suspends or resumes the queues (`isSuspended`: running jobs go on, nothing new
  /// starts)." — the first suspends every queue.
  @Test func sigusr1SuspendsEveryQueueRunningJobsGoOnAndNothingNewStarts() {
    let run = DriverHarness(
      """
      queues: {net: {max-concurrent: 1}}
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
        c: {command: fetch, queue: net}
        d: {command: upload, queue: net}
      """)
    run.start()
    run.advance(by: 0.5)
    RunSession.handle(SIGUSR1, driver: run.driver, stoppingSelf: {})
    #expect(run.events.lines.filter { $0.hasPrefix("queue ") } == ["queue jobs suspended", "queue net suspended"])
    run.advance(by: 10)
    #expect(run.events.lines(of: "a").last == "a executing>finished succeeded")
    #expect(run.events.lines(of: "c").last == "c executing>finished succeeded")
    #expect(run.events.lines(of: "b") == ["b pending>ready"])
    #expect(run.events.lines(of: "d") == ["d pending>ready"])
    #expect(run.backend.orders.map(\.commands) == [["build"], ["fetch"]])
    #expect(run.backend.signals.isEmpty)
    #expect(!run.driver.isFinished)
  }

  /// "SIGUSR1 suspends or resumes the queues" — the second resumes them, and what waited starts.
  @Test func secondSigusr1ResumesTheQueues() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: build}
        b: {command: test, dependencies: [a]}
      """)
    run.start()
    RunSession.handle(SIGUSR1, driver: run.driver, stoppingSelf: {})
    run.advance(by: 5)
    RunSession.handle(SIGUSR1, driver: run.driver, stoppingSelf: {})
    #expect(run.events.lines.filter { $0.hasPrefix("queue ") } == ["queue jobs suspended", "queue jobs resumed"])
    #expect(run.events.time(of: "b ready>executing") == 5)
    #expect(run.runToEnd() == 0)
  }

  /// "Ctrl-Z (SIGTSTP) stops the running jobs and oprun itself; `fg` continues them all."
  @Test func ctrlZStopsEverythingBeforeOprunStopsAndContinuesItAfter() {
    let run = DriverHarness("jobs: {a: {command: build, completion: notify}}")
    run.start()
    run.advance(by: 0.5)
    var broadcastsWhileStopped: [JobSignal] = []
    RunSession.handle(SIGTSTP, driver: run.driver) {
      broadcastsWhileStopped = run.backend.broadcasts.map(\.signal)
    }
    #expect(broadcastsWhileStopped == [.stop])
    #expect(run.backend.broadcasts.map(\.signal) == [.stop, .continue])
    #expect(run.backend.signals.isEmpty)
    // A SIGCONT from elsewhere (`kill -CONT`, a shell's `bg`) continues the jobs too.
    RunSession.handle(SIGCONT, driver: run.driver, stoppingSelf: {})
    #expect(run.backend.broadcasts.map(\.signal) == [.stop, .continue, .continue])
    #expect(run.runToEnd() == 0)
  }

  /// Ctrl-C is announced before any job is cancelled, with what the run now waits for and
  /// for how long; a second Ctrl-C is announced as the kill it is.
  @Test func eachCancellingSignalIsAnnouncedBeforeWhatItDoes() {
    let run = DriverHarness(
      """
      max-concurrent: 2
      jobs:
        done: {command: quick}
        stubborn: {command: stubborn}
        other: {command: slow}
        later: {command: quick, dependencies: [other]}
      """, grace: 3)
    run.backend.scripts["quick"] = FakeCommand(duration: 0.5)
    run.backend.scripts["stubborn"] = FakeCommand(duration: 100, onSignal: .ignores)
    run.backend.scripts["slow"] = FakeCommand(duration: 100, onSignal: .exits(after: 0.1, .signalled(SIGINT)))
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    let first = run.events.lines.firstIndex { $0.hasPrefix("cancelling") }
    #expect(run.events.lines.contains("cancelling \(SIGINT) 3 jobs [stubborn,other] grace 3.0"))
    #expect(first.map { $0 < run.events.lines.firstIndex(of: "stubborn cancelled interrupt")! } == true)
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    #expect(run.events.lines.contains("killing \(SIGINT) [stubborn]"))
    #expect(run.runToEnd() == 128 + SIGINT)
  }

  /// "Every job runs in its own process group, so no grandchild outlives a cancelled run."
  /// The driver's part: each command's own group gets the signal, and the kill at the end of
  /// the grace, even a command that has exited but left a process behind.
  @Test func everyCommandsGroupGetsTheSignalAndTheKillEvenAfterItExited() {
    let run = DriverHarness("jobs: {a: {commands: [main, helper]}}")
    run.backend.scripts = [
      "main": FakeCommand(duration: 100, onSignal: .exits(after: 10, .exited(1))),
      "helper": FakeCommand(duration: 0.5, leavesProcessBehind: true),
    ]
    run.start()
    run.advance(by: 1)
    #expect(run.backend.liveGroups == ["main", "helper"])
    run.driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    run.advance(to: 6)
    let main = run.backend.handle(of: "main")!
    let helper = run.backend.handle(of: "helper")!
    #expect(run.backend.signals.map(\.handle) == [main, helper, main, helper])
    #expect(
      run.backend.signalLines == ["main interrupt@1.0", "helper interrupt@1.0", "main kill@6.0", "helper kill@6.0"])
    #expect(run.backend.liveGroups.isEmpty)
    #expect(run.runToEnd() == 128 + SIGINT)
  }

  /// "A job is finished when its own process exits; what it left running in its group
  /// (`server &`) may serve the jobs after it, but when the run ends those leftovers get
  /// SIGTERM, then SIGKILL after the grace"
  @Test func leftoverOfAFinishedJobServesTheJobsAfterItUntilTheRunEnds() {
    let run = DriverHarness(
      """
      jobs:
        server: {command: start-server}
        client: {command: test, dependencies: [server]}
      """, grace: 2)
    run.backend.scripts["start-server"] = FakeCommand(duration: 1, leavesProcessBehind: true)
    run.backend.scripts["test"] = FakeCommand(duration: 3)
    run.start()
    run.advance(by: 1)
    #expect(run.events.lines(of: "server").last == "server executing>finished succeeded")
    #expect(run.events.time(of: "client ready>executing") == 1)
    run.advance(by: 2.5)
    #expect(run.backend.liveGroups == ["start-server", "test"])
    #expect(run.runToEnd() == 0)
    #expect(run.backend.signals.isEmpty)
    #expect(run.backend.endRunGrace == 2)
  }

  /// "A job that is cancelled or times out takes its group with it at once: what is left in
  /// the group after its own process exits gets SIGKILL when the grace period ends, at the
  /// latest." — cancelled, while the run goes on.
  @Test func leftoverOfACancelledJobIsKilledWhenTheGraceEnds() {
    let run = DriverHarness(
      """
      jobs:
        a: {command: spawn-daemon}
        b: {command: cleanup-slowly}
      """, grace: 3)
    run.backend.scripts = [
      "spawn-daemon": FakeCommand(duration: 100, leavesProcessBehind: true),
      "cleanup-slowly": FakeCommand(duration: 100, onSignal: .exits(after: 2.5, .exited(0))),
    ]
    run.start()
    run.advance(by: 1)
    run.driver.apply(.cancelRun(reason: .terminate, endingSignal: SIGTERM))
    run.advance(by: 0)
    #expect(run.events.time(of: "a executing>finished cancelled") == 1)
    #expect(run.backend.liveGroups == ["spawn-daemon", "cleanup-slowly"])
    run.advance(to: 3.5)
    #expect(run.backend.liveGroups == ["spawn-daemon"])
    run.advance(to: 4)
    #expect(run.backend.liveGroups.isEmpty)
    #expect(
      run.backend.signalLines.filter { $0.hasPrefix("spawn-daemon") } == [
        "spawn-daemon terminate@1.0", "spawn-daemon kill@4.0",
      ])
  }

  /// Under `--watch`, a change is said first (`watch-changed`), then the jobs reading the
  /// changed files and everything depending on them are cancelled (reason `changed`); a job
  /// beside them goes on (SPEC §13).
  @Test func changedFilesAreSaidThenCancelWhatReadsThemAndItsDependentsOnly() {
    let run = DriverHarness(
      """
      jobs:
        build: {command: build}
        serve: {command: serve, dependencies: [build]}
        lint: {command: lint}
      """)
    run.start()
    run.advance(by: 0.5)
    let build = run.driver.graph.jobs.firstIndex { $0.name == "build" }!
    run.driver.apply(.filesChanged(paths: ["src/a.c"], count: 3, jobs: [build]))
    let said = run.events.lines.filter { $0.hasPrefix("watch-changed") || $0.contains(" cancelled ") }
    #expect(said == ["watch-changed src/a.c of 3", "build cancelled changed", "serve cancelled changed"])
    #expect(run.backend.signalLines == ["build terminate@0.5"])
    run.advance(by: 10)
    #expect(run.events.lines(of: "lint").last == "lint executing>finished succeeded")
  }
}
