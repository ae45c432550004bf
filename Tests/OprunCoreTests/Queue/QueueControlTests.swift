import Testing

@testable import OprunCore

/// SPEC §8, "Semantics are Foundation's", sentence by sentence, on the engine alone: what
/// `oprun ctl` asks of the queues. (Covered elsewhere: cancelling a finished job,
/// `QueueCancellationTests.cancelAfterFinishDoesNothing`; a job cancelled while executing
/// finishes cancelled, `jobCancelledWhileExecutingFinishesCancelledWhateverItsStatus`; the end
/// of the new band, `QueueSteeringTests.priorityChangeMovesAWaitingJobToTheEndOfItsNewBand`;
/// raising and lowering a limit, `raisingTheLimitStartsJobsNow`, `loweringTheLimitStopsNothingThatRuns`.)
@Suite struct QueueControlTests {
  /// "a cancelled queued job ignores its dependencies and finishes cancelled when its queue
  /// starts it" — one job, cancelled alone, while what it depends on runs.
  @Test func oneCancelledPendingJobIgnoresItsDependenciesAndFinishesWhenItsQueueStartsIt() {
    let run = QueueHarness("queue main max=1\na\nb <- a\nc")
    run.start()
    #expect(run.launch() == ["a"])
    #expect(run.engine.cancel(run.id("b"), reason: .control) == .cancelled)
    #expect(run.log.lines(of: "b") == ["b cancelled control", "b pending>ready"])
    #expect(!run.engine.isCancelled(run.id("c")))
    #expect(run.launch().isEmpty)  // the one slot is a's
    run.finish("a")
    #expect(run.launch() == ["c"])
    #expect(run.log.lines(of: "b").last == "b ready>finished cancelled")
    #expect(run.outcome("b") == .cancelled)
  }

  /// "its dependents then follow their `run-if`" — of a job cancelled before it started.
  @Test func dependentsOfACancelledQueuedJobFollowTheirRunIf() {
    let run = QueueHarness("hold\na <- hold\nb <- a\nc <- a run-if=always\nd <- a run-if=failure")
    run.start()
    #expect(run.launch() == ["hold"])
    run.engine.cancel(run.id("a"), reason: .control)
    #expect(run.launch() == ["c", "d"])
    #expect(run.outcome("a") == .cancelled)
    #expect(run.outcome("b") == .skipped)
    #expect(run.log.lines(of: "b").first == "b pending>ready")
    #expect(run.engine.cancelReason(of: run.id("b")) == .dependencyFailed)
  }

  /// "changing the priority of one that has started, changes nothing and says so" — and the
  /// run can ask beforehand, changing nothing either.
  @Test func priorityChangeOfAStartedOrFinishedJobIsRefusedBeforehandWithoutAnEvent() {
    let run = QueueHarness("queue main max=2\na\nb\nc")
    run.start()
    #expect(run.launch() == ["a", "b"])
    run.finish("b")
    run.log.clear()
    #expect(run.engine.priorityChange(of: run.id("a")) == .started)
    #expect(run.engine.priorityChange(of: run.id("b")) == .finished)
    #expect(run.engine.priorityChange(of: run.id("c")) == .changed)
    #expect(run.log.lines.isEmpty)
    #expect(run.engine.effectivePriority(of: run.id("c")) == .normal)
    #expect(run.engine.setPriority(run.id("a"), .veryHigh) == .started)
    #expect(run.log.lines.isEmpty)
  }

  /// "Cancelling one job leaves a suspended queue suspended: the job finishes when the queue
  /// is resumed and starts it"
  @Test func cancellingOneJobOfASuspendedQueueLeavesItSuspendedUntilResumed() {
    let run = QueueHarness("queue main max=1\na\nb")
    run.start()
    #expect(run.launch() == ["a"])
    run.engine.setSuspended(0, true)
    run.log.clear()
    run.engine.cancel(run.id("b"), reason: .control)
    run.finish("a")
    #expect(run.launch().isEmpty)
    #expect(run.engine.isSuspended(0))
    #expect(run.log.lines == ["b cancelled control", "a executing>finished succeeded"])
    run.engine.setSuspended(0, false)
    run.launch()
    #expect(run.log.lines.suffix(2) == ["queue main resumed", "b ready>finished cancelled"])
  }

  /// "`cancel-all`, like Ctrl-C, resumes the queues it cancels so that the run can drain" —
  /// only those: another queue stays suspended and keeps its jobs.
  @Test func cancelAllOfOneQueueResumesOnlyThatQueueAndLeavesTheOtherAlone() {
    let run = QueueHarness("queue net max=1\na\nb queue=net\nc queue=net")
    run.start()
    run.engine.setSuspended(run.queue("main"), true)
    run.engine.setSuspended(run.queue("net"), true)
    run.log.clear()
    run.engine.cancelAll(queues: [run.queue("net")], reason: .control)
    #expect(run.log.lines == ["b cancelled control", "c cancelled control", "queue net resumed"])
    run.launch()
    #expect(run.outcome("b") == .cancelled && run.outcome("c") == .cancelled)
    #expect(run.engine.isSuspended(run.queue("main")))
    #expect(!run.engine.isCancelled(run.id("a")))
    #expect(run.state("a") == .ready)
  }

  /// "a run that ends this way, with no signal received, exits 1" — one job cancelled by
  /// control among jobs that succeed.
  @Test func runWithOneJobCancelledByControlExitsOne() {
    let run = QueueHarness("a\nb\nc")
    run.start()
    run.engine.cancel(run.id("b"), reason: .control)
    run.runToEnd()
    #expect(run.engine.isDrained)
    #expect(run.engine.counts[.succeeded] == 2 && run.engine.counts[.cancelled] == 1)
    #expect(run.engine.exitStatus() == 1)
  }

  /// "QoS-derived bands are fixed when the run starts and do not move when `limit` crosses
  /// 1" — a serial queue raised above 1 keeps ignoring QoS.
  @Test func qosBandsStayIgnoredWhenASerialQueuesLimitIsRaised() {
    let run = QueueHarness("queue main max=1\nhold\nplain\nhigh qos=userInteractive")
    run.start()
    #expect(run.launch() == ["hold"])
    run.engine.setMaxConcurrent(0, 2)
    #expect(run.engine.effectivePriority(of: run.id("high")) == .normal)
    #expect(run.launch() == ["plain"])
  }
}
