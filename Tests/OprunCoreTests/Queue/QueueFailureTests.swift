import Testing

@testable import OprunCore

/// SPEC §3.5: what fails, retries, `on-failure`, and the exit status.
@Suite struct QueueFailureTests {
  @Test func nonZeroExitFails() {
    let run = QueueHarness("a")
    run.start()
    run.runToEnd(failing: ["a"])
    #expect(run.outcome("a") == .failed)
  }

  @Test func signalOprunDidNotSendFails() {
    let run = QueueHarness("a")
    run.start()
    run.runToEnd(failing: ["a"])
    #expect(run.outcome("a") == .failed)
  }

  @Test func timedOutJobIsToldToTheExecutorAndFinishesTimedOut() {
    let run = QueueHarness("a timeout=1")
    run.start()
    run.launch()
    run.engine.timedOut(run.id("a"))
    #expect(run.log.lines.last == "a cancelled timeout")
    #expect(!run.engine.isCancelled(run.id("a")))
    run.fail("a")
    #expect(run.outcome("a") == .timedOut)
    #expect(run.engine.exitStatus() == 1)
  }

  @Test func timedOutJobThatExitsZeroIsStillTimedOut() {
    let run = QueueHarness("a timeout=1")
    run.start()
    run.launch()
    run.engine.timedOut(run.id("a"))
    run.finish("a")
    #expect(run.outcome("a") == .timedOut)
  }

  @Test func timeoutAfterCancelChangesNothing() {
    let run = QueueHarness("a timeout=1")
    run.start()
    run.launch()
    run.engine.cancel(run.id("a"), reason: .control)
    run.engine.timedOut(run.id("a"))
    run.fail("a")
    #expect(run.outcome("a") == .cancelled)
    #expect(!run.log.lines.contains("a cancelled timeout"))
  }

  @Test func failedJobIsRetriedUpToItsRetries() {
    let run = QueueHarness("a retries=2")
    run.start()
    run.launch()
    run.fail("a")
    #expect(run.log.lines.last == "a executing>ready")
    #expect(run.launch() == ["a"])
    #expect(run.engine.attempt(of: run.id("a")) == 2)
    run.fail("a")
    let third = run.engine.nextLaunches()
    #expect(third == [Launch(job: run.id("a"), attempt: 3)])
    run.engine.didStart(third[0].job)
    run.fail("a")
    #expect(run.outcome("a") == .failed)
    #expect(run.log.transitions.last?.attempt == 3)
  }

  @Test func retriedJobThatSucceedsSucceeds() {
    let run = QueueHarness("a retries=1\nb <- a")
    run.start()
    run.launch()
    run.fail("a")
    #expect(run.state("b") == .pending)
    run.launch()
    run.finish("a")
    #expect(run.outcome("a") == .succeeded)
    #expect(run.launch() == ["b"])
    #expect(run.engine.exitStatus() == 0)
  }

  @Test func retryGoesBackToReadyWithTheNextAttempt() {
    let run = QueueHarness("a retries=1")
    run.start()
    run.launch()
    run.fail("a")
    let retry = run.log.transitions.last!
    #expect(retry.from == .executing && retry.to == .ready)
    #expect(retry.attempt == 2)
    #expect(retry.outcome == nil)
  }

  @Test func timedOutAttemptIsRetried() {
    let run = QueueHarness("a retries=1 timeout=1")
    run.start()
    run.launch()
    run.engine.timedOut(run.id("a"))
    run.fail("a")
    #expect(run.launch() == ["a"])
    run.finish("a")
    #expect(run.outcome("a") == .succeeded)
  }

  @Test func retryWaitsInItsQueueByManifestOrder() {
    let run = QueueHarness("queue main max=1\na retries=1\nb")
    run.start()
    run.launch()
    run.fail("a")
    #expect(run.launch() == ["a"])
  }

  @Test func failurePolicyTriggersOnlyOnTheFinalFailedAttempt() {
    let run = QueueHarness("queue main max=2\na retries=1\nb\nc <- b")
    run.start()
    #expect(run.launch() == ["a", "b"])
    run.fail("a")
    run.finish("b")
    #expect(!run.engine.isCancelled(run.id("c")))
    #expect(run.launch() == ["a", "c"])
    run.fail("a")
    #expect(run.engine.isCancelled(run.id("c")) == false)  // c is executing: stop lets it finish
    run.finish("c")
    #expect(run.outcome("c") == .succeeded)
  }

  @Test func stopStartsNothingNewAndCancelsWhatHasNotStarted() {
    let run = QueueHarness("queue main max=2\na\nb\nc\nd <- b", failurePolicy: .stop)
    run.start()
    #expect(run.launch() == ["a", "b"])
    run.fail("a")
    #expect(
      run.log.lines.suffix(4) == [
        "a executing>finished failed", "c cancelled failure-policy", "d cancelled failure-policy", "d pending>ready",
      ])
    #expect(run.engine.isCancelled(run.id("c")))
    #expect(run.engine.cancelReason(of: run.id("d")) == .failurePolicy)
    #expect(!run.engine.isCancelled(run.id("b")))
    #expect(run.launch().isEmpty)
    run.finish("b")
    #expect(run.outcome("b") == .succeeded)
    #expect(run.outcome("c") == .cancelled)
    #expect(run.outcome("d") == .cancelled)
    #expect(run.engine.isDrained)
    #expect(run.engine.exitStatus() == 1)
  }

  @Test func stopStillRunsJobsWhoseRunIfIsAlwaysOrFailure() {
    let run = QueueHarness(
      "queue main max=2\na\nb\nc <- b\ncleanup <- c run-if=always\nnotify <- c run-if=failure\nafter <- cleanup",
      failurePolicy: .stop)
    run.start()
    run.launch()
    run.fail("a")
    #expect(!run.engine.isCancelled(run.id("cleanup")))
    #expect(!run.engine.isCancelled(run.id("notify")))
    #expect(run.engine.isCancelled(run.id("after")))
    run.finish("b")
    #expect(Set(run.launch()) == ["cleanup", "notify"])
    #expect(run.outcome("c") == .cancelled)
  }

  @Test func stopDoesNotRetryAfterItFired() {
    let run = QueueHarness("queue main max=2\na\nb retries=3", failurePolicy: .stop)
    run.start()
    run.launch()
    run.fail("a")
    run.fail("b")
    #expect(run.outcome("b") == .failed)
    #expect(run.engine.attempt(of: run.id("b")) == 1)
  }

  @Test func continueRunsEverythingItsRunIfAllows() {
    let run = QueueHarness("queue main max=1\na\nb\nc <- a\nd <- b", failurePolicy: .continue)
    run.start()
    #expect(run.runToEnd(failing: ["a"]) == ["a", "b", "d"])
    #expect(run.outcome("c") == .skipped)
    #expect(run.engine.exitStatus() == 1)
  }

  @Test func cancelAllPolicyCancelsRunningJobsTooLikeInterrupt() {
    let run = QueueHarness("queue main max=2\na\nb\nc\nd run-if=always", failurePolicy: .cancelAll)
    run.start()
    run.launch()
    run.fail("a")
    #expect(run.engine.cancelReason(of: run.id("b")) == .failurePolicy)
    #expect(run.engine.isCancelled(run.id("c")))
    #expect(run.engine.isCancelled(run.id("d")))
    run.finish("b")
    #expect(run.runToEnd().isEmpty)
    #expect(run.outcome("b") == .cancelled)
    #expect(run.engine.isDrained)
  }

  @Test func exitStatusIsZeroWhenEveryJobSucceededOrWasSkippedByRunIf() {
    let run = QueueHarness("a\nb <- a run-if=failure")
    run.start()
    run.runToEnd()
    #expect(run.engine.counts[.skipped] == 1)
    #expect(run.engine.exitStatus() == 0)
  }

  @Test func exitStatusIsOneWhenAnyJobFailed() {
    let run = QueueHarness("a\nb", failurePolicy: .continue)
    run.start()
    run.runToEnd(failing: ["b"])
    #expect(run.engine.exitStatus() == 1)
  }
}
