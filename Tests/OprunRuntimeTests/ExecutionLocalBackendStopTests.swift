import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Stopping and continuing real process groups through ``LocalBackend``: Ctrl-Z's stop of
/// everything spares a job paused by `oprun ctl pause`, so that `fg` does not continue it.
@Suite struct ExecutionLocalBackendStopTests {
  @Test func stoppingEverythingSparesPausedCommandsAndContinuingContinuesOnlyWhatItStopped() throws {
    let loop = EventLoop()
    let backend = LocalBackend(
      loop: loop, framing: .lines, environment: SpawnEnvironment(testEnvironment), grace: 5)
    var exited = 0
    backend.reportHandler = { report in
      if case .exited = report { exited += 1 }
    }
    let order = WorkOrder(
      work: WorkKey(job: 0, purpose: .attempt(1)), commands: ["exec sleep 60", "exec sleep 60"], environment: [],
      workingDirectory: "/tmp", qos: .default, interactive: false, timeout: nil)
    let handles = try backend.start(order).map { try $0.get() }
    let (paused, other) = (handles[0], handles[1])
    defer {
      // Its own two only: "everything" is every child group of this process, and other
      // tests running beside this one have theirs.
      backend.signal(paused, .kill)
      backend.signal(other, .kill)
      runLoop(loop) { exited == 2 }
    }

    backend.signal(paused, .stop)
    runLoop(loop, checkingEvery: 0.01) { isStopped(paused.id) }
    backend.signalEverything(.stop, sparing: [paused])
    runLoop(loop, checkingEvery: 0.01) { isStopped(other.id) }
    backend.signalEverything(.continue)
    runLoop(loop, checkingEvery: 0.01) { !isStopped(other.id) }
    #expect(isStopped(paused.id))
    backend.signal(paused, .continue)
    runLoop(loop, checkingEvery: 0.01) { !isStopped(paused.id) }
  }

  /// State `T` in /proc/PID/stat: stopped by a signal.
  private func isStopped(_ pid: Int32) -> Bool {
    procStat(pid)?[3] == "T"
  }
}
