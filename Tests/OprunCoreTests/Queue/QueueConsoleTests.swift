import Testing

@testable import OprunCore

/// `interactive: true`: at most one interactive job executes at a time (ninja's console pool).
@Suite struct QueueConsoleTests {
  @Test func secondInteractiveJobWaitsForTheFirstToFinish() {
    let run = QueueHarness("queue net\na interactive=true\nb interactive=true queue=net")
    run.start()
    #expect(run.launch() == ["a"])
    run.finish("a")
    #expect(run.launch() == ["b"])
  }

  @Test func jobsBehindAWaitingInteractiveJobStillStart() {
    let run = QueueHarness("a interactive=true\nb interactive=true\nc")
    run.start()
    #expect(run.launch() == ["a", "c"])
    #expect(run.state("b") == .ready)
    run.finish("a")
    #expect(run.launch() == ["b"])
  }

  @Test func aRetriedInteractiveAttemptFreesTheConsole() {
    let run = QueueHarness("a interactive=true retries=1\nb interactive=true")
    run.start()
    #expect(run.launch() == ["a"])
    run.fail("a")
    #expect(run.launch() == ["a"])
    run.finish("a")
    #expect(run.launch() == ["b"])
  }

  @Test func cancelledInteractiveJobPassesThroughWithoutTheConsole() {
    let run = QueueHarness("a interactive=true\nb interactive=true")
    run.start()
    #expect(run.launch() == ["a"])
    run.engine.cancel(run.id("b"), reason: .control)
    #expect(run.launch().isEmpty)
    #expect(run.outcome("b") == .cancelled)
  }
}
