import Testing

@testable import OprunCore

/// SPEC §3.4 and Foundation's `cancel()` / `cancelAllOperations()`.
@Suite struct QueueCancellationTests {
  @Test func cancelledQueuedJobIgnoresItsDependencies() {
    let run = QueueHarness("a\nb <- a")
    run.start()
    run.launch()
    run.engine.cancelAll(reason: .interrupt)
    #expect(run.state("b") == .ready)
    #expect(run.log.lines(of: "b") == ["b cancelled interrupt", "b pending>ready"])
  }

  @Test func cancelledQueuedJobFinishesWithoutExecutingWhenItsQueueStartsIt() {
    let run = QueueHarness("a\nb <- a")
    run.start()
    run.launch()
    run.engine.cancelAll(reason: .interrupt)
    #expect(run.launch().isEmpty)
    #expect(run.log.lines(of: "b") == ["b cancelled interrupt", "b pending>ready", "b ready>finished cancelled"])
  }

  @Test func cancelledQueuedJobStillPassesThroughItsQueueTakingAFreeSlot() {
    let run = QueueHarness("queue main max=1\na\nb")
    run.start()
    #expect(run.launch() == ["a"])
    run.engine.cancel(run.id("b"), reason: .control)
    #expect(run.launch().isEmpty)
    #expect(run.state("b") == .ready)
    run.finish("a")
    run.launch()
    #expect(run.outcome("b") == .cancelled)
  }

  @Test func cancelledQueuedJobsFinishInQueueOrder() {
    let run = QueueHarness("queue main max=1\nx\na\nb priority=high\nc <- x")
    run.start()
    #expect(run.launch() == ["b"])
    run.engine.cancelAll(reason: .terminate)
    run.log.clear()
    run.finish("b")
    run.launch()
    #expect(
      run.log.lines == [
        "b executing>finished cancelled", "x ready>finished cancelled", "a ready>finished cancelled",
        "c ready>finished cancelled",
      ])
  }

  @Test func executingJobIsFlaggedAndTheExecutorToldToSignalIt() {
    let run = QueueHarness("a")
    run.start()
    run.launch()
    #expect(run.engine.cancel(run.id("a"), reason: .interrupt) == .cancelled)
    #expect(run.log.lines.last == "a cancelled interrupt")
    #expect(run.state("a") == .executing)
    #expect(run.engine.isCancelled(run.id("a")))
  }

  @Test func jobCancelledWhileExecutingFinishesCancelledWhateverItsStatus() {
    for succeeded in [true, false] {
      let run = QueueHarness("a retries=3")
      run.start()
      run.launch()
      run.engine.cancel(run.id("a"), reason: .control)
      run.finish("a", succeeded: succeeded)
      #expect(run.outcome("a") == .cancelled)
      #expect(run.engine.attempt(of: run.id("a")) == 1)
    }
  }

  @Test func completionRunsAfterCancelBecauseTheCancelledJobStillFinishes() {
    let run = QueueHarness("a\nb <- a")
    run.start()
    run.launch()
    run.engine.cancelAll(reason: .interrupt)
    run.fail("a")
    run.launch()
    for job in ["a", "b"] {
      let lines = run.log.lines(of: job)
      #expect(lines.firstIndex(of: "\(job) cancelled interrupt")! < lines.firstIndex { $0.contains(">finished") }!)
    }
    #expect(run.engine.isDrained)
  }

  @Test func cancelAfterFinishDoesNothing() {
    let run = QueueHarness("a")
    run.start()
    run.runToEnd()
    run.log.clear()
    #expect(run.engine.cancel(run.id("a"), reason: .control) == .alreadyFinished)
    #expect(run.log.lines.isEmpty)
    #expect(!run.engine.isCancelled(run.id("a")))
    #expect(run.outcome("a") == .succeeded)
  }

  @Test func cancellingTwiceKeepsTheFirstReason() {
    let run = QueueHarness("a")
    run.start()
    run.engine.cancel(run.id("a"), reason: .control)
    #expect(run.engine.cancel(run.id("a"), reason: .interrupt) == .alreadyCancelled)
    #expect(run.engine.cancelReason(of: run.id("a")) == .control)
    #expect(run.log.lines.filter { $0.contains("cancelled") } == ["a cancelled control"])
  }

  @Test func cancelAllCancelsEveryJobNotFinished() {
    let run = QueueHarness("a\nb\nc <- a")
    run.start()
    run.launch()
    run.finish("b")
    run.engine.cancelAll(reason: .interrupt)
    #expect(run.engine.isCancelled(run.id("a")))
    #expect(!run.engine.isCancelled(run.id("b")))
    #expect(run.engine.isCancelled(run.id("c")))
  }

  @Test func cancelAllOfSomeQueuesLeavesTheOthers() {
    let run = QueueHarness("queue net\na\nb queue=net")
    run.start()
    run.engine.cancelAll(queues: [run.queue("net")], reason: .control)
    #expect(!run.engine.isCancelled(run.id("a")))
    #expect(run.engine.isCancelled(run.id("b")))
  }

  @Test func cancelAllResumesTheQueuesItCancels() {
    let run = QueueHarness("queue net\na\nb queue=net")
    run.start()
    run.engine.setSuspended(run.queue("main"), true)
    run.engine.setSuspended(run.queue("net"), true)
    run.engine.cancelAll(queues: [run.queue("net")], reason: .control)
    #expect(!run.engine.isSuspended(run.queue("net")))
    #expect(run.engine.isSuspended(run.queue("main")))
    run.launch()
    #expect(run.outcome("b") == .cancelled)
    #expect(run.state("a") == .ready)
  }

  @Test func cancellingOneJobLeavesASuspendedQueueSuspended() {
    let run = QueueHarness("a")
    run.start()
    run.engine.setSuspended(0, true)
    run.engine.cancel(run.id("a"), reason: .control)
    #expect(run.launch().isEmpty)
    #expect(run.state("a") == .ready)
    run.engine.setSuspended(0, false)
    run.launch()
    #expect(run.outcome("a") == .cancelled)
  }

  @Test func cancelledJobHasNotFailedAndSetsOffNoFailurePolicy() {
    let run = QueueHarness("queue main max=1\na\nb", failurePolicy: .stop)
    run.start()
    run.launch()
    run.engine.cancel(run.id("a"), reason: .control)
    run.fail("a")
    #expect(run.launch() == ["b"])
    #expect(run.engine.counts[.failed] == 0)
  }

  @Test func dependentsOfACancelledJobFollowTheirRunIf() {
    let run = QueueHarness("a\nb <- a\nc <- a run-if=always\nd <- a run-if=failure")
    run.start()
    run.launch()
    run.engine.cancel(run.id("a"), reason: .control)
    run.finish("a")
    #expect(run.launch() == ["c", "d"])
    #expect(run.outcome("b") == .skipped)
  }

  @Test func launchedJobCancelledBeforeItStartsIsFlaggedLikeAnExecutingOne() {
    let run = QueueHarness("a")
    run.start()
    let launches = run.engine.nextLaunches()
    #expect(run.engine.cancel(run.id("a"), reason: .control) == .cancelled)
    run.engine.didStart(launches[0].job)
    run.finish("a")
    #expect(run.outcome("a") == .cancelled)
  }

  @Test func jobCancelledBeforeTheRunStartsGoesReadyOnce() {
    let run = QueueHarness("a\nb <- a")
    run.engine.cancelAll(reason: .interrupt)
    run.start()
    run.launch()
    #expect(run.log.lines(of: "a") == ["a cancelled interrupt", "a pending>ready", "a ready>finished cancelled"])
    #expect(run.engine.isDrained)
  }

  @Test func cancelledRunExitsOne() {
    let run = QueueHarness("a\nb <- a")
    run.start()
    run.engine.cancelAll(reason: .control)
    run.runToEnd()
    #expect(run.engine.isDrained)
    #expect(run.engine.exitStatus() == 1)
    #expect(run.engine.counts[.cancelled] == 2)
  }
}

/// Launches are handed out one at a time, so that what starting one changes is seen by the next.
@Suite struct QueueLaunchCancellationTests {
  @Test func jobCancelledBetweenTwoLaunchesFinishesWithoutExecuting() {
    let run = QueueHarness("a\nb")
    run.start()
    let first = run.engine.nextLaunch()
    #expect(first?.job == run.id("a"))
    run.engine.didStart(run.id("a"))
    run.engine.cancel(run.id("b"), reason: .failurePolicy)
    #expect(run.engine.nextLaunch() == nil)
    run.engine.checkInvariants()
    #expect(run.outcome("b") == .cancelled)
    #expect(run.log.lines(of: "b").last == "b ready>finished cancelled")
    #expect(run.engine.runningCount(queue: 0) == 1)
  }
}
