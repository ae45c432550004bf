import OprunCore
import Testing

@testable import OprunRuntime

/// The driver's table of what runs: one attempt per job, ended by its last command, the first
/// failure deciding; completions counted apart; waiting launches tried again only after
/// something ended.
@Suite struct AttemptTableTests {
  private func handle(_ id: Int32) -> CommandHandle { CommandHandle(id: id, serial: UInt64(id)) }

  private func attempt(_ number: Int, commands: Int) -> RunningAttempt {
    RunningAttempt(attempt: number, handles: (0..<commands).map { handle(Int32(100 + $0)) }, remaining: commands)
  }

  @Test func anAttemptEndsWithItsLastCommandAndTheFirstFailureDecides() {
    var table = AttemptTable()
    table.began(attempt(1, commands: 3), of: 2)
    #expect(table.runningCount == 1 && table.isRunningAnything)
    let first = table.commandExited(2, attempt: 1, .exited(0))
    let second = table.commandExited(2, attempt: 1, .exited(4))
    #expect(first == nil && second == nil)
    let ended = table.commandExited(2, attempt: 1, .signalled(9))
    #expect(ended?.termination == .exited(4))
    #expect(table[2] == nil && table.runningCount == 0 && !table.isRunningAnything)
  }

  @Test func anExitOfAnotherAttemptOfTheJobChangesNothing() {
    var table = AttemptTable()
    table.began(attempt(2, commands: 1), of: 0)
    let ofAnother = table.commandExited(0, attempt: 1, .exited(1))
    #expect(ofAnother == nil && table[0]?.remaining == 1)
    let ofItsOwn = table.commandExited(0, attempt: 2, .exited(0))
    #expect(ofItsOwn?.termination == .exited(0))
  }

  @Test func completionsCountAsRunningUntilTheyExit() {
    var table = AttemptTable()
    table.completionStarted(1, handle(7))
    #expect(table.isRunningAnything && table.completionCount == 1)
    table.completionExited(1)
    table.completionExited(1)
    #expect(!table.isRunningAnything && table.completionCount == 0)
  }

  @Test func waitingLaunchesAreTriedAgainOnlyOnceSomethingEnded() {
    var table = AttemptTable()
    table.wait(Launch(job: 3, attempt: 1))
    let beforeAnEnd = table.launchesToRetry()
    table.noteSomethingEnded()
    let afterAnEnd = table.launchesToRetry()
    let afterTheRetry = table.launchesToRetry()
    #expect(beforeAnEnd.isEmpty && afterAnEnd == [Launch(job: 3, attempt: 1)] && afterTheRetry.isEmpty)
  }

  @Test func pausingKeepsTheTimeLeftAndHandsBackTheTimer() {
    var running = attempt(1, commands: 1)
    running.timeoutTimer = TimerID(value: 5)
    running.timeoutDeadline = 30
    let timer = running.pause(at: 12)
    #expect(timer == TimerID(value: 5))
    #expect(running.pause?.timeLeft == 18 && running.timeoutTimer == nil && running.timeoutDeadline == nil)
  }

  @Test func onlyPausedAttemptsAreSparedWhenEverythingStops() {
    var table = AttemptTable()
    table.began(attempt(1, commands: 1), of: 0)
    table.began(RunningAttempt(attempt: 1, handles: [handle(200), handle(201)], remaining: 2), of: 2)
    table.update(2) { $0.pause = RunningAttempt.Pause(timeLeft: nil) }
    #expect(table.pausedHandles == [handle(200), handle(201)])
  }

  /// A run of many jobs updates its table in place: each begin and end costs the same
  /// whatever the size (the table is never copied per event).
  @Test func aLargeRunBeginsAndEndsEveryJobOnce() {
    let jobs = 100_000
    var table = AttemptTable()
    for job in 0..<jobs { table.began(attempt(1, commands: 1), of: job) }
    #expect(table.runningCount == jobs)
    var ended = 0
    for job in 0..<jobs where table.commandExited(job, attempt: 1, .exited(0)) != nil { ended += 1 }
    #expect(ended == jobs && table.runningCount == 0)
  }
}
