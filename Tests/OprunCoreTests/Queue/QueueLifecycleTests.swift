import Testing

@testable import OprunCore

/// SPEC §2: the lifecycle every job goes through, and what each transition carries.
@Suite struct QueueLifecycleTests {
  @Test func everyJobStartsPendingWithoutAnEvent() {
    let run = QueueHarness("a\nb <- a")
    #expect(run.state("a") == .pending)
    #expect(run.state("b") == .pending)
    #expect(run.log.lines.isEmpty)
  }

  @Test func jobWithoutDependenciesBecomesReadyAsTheRunStarts() {
    let run = QueueHarness("a\nb <- a\nc")
    run.start()
    #expect(run.log.lines == ["a pending>ready", "c pending>ready"])
  }

  @Test func jobStaysPendingUntilEveryDependencyHasFinished() {
    let run = QueueHarness("a\nb\nc <- a,b")
    run.start()
    #expect(run.launch() == ["a", "b"])
    run.finish("a")
    #expect(run.state("c") == .pending)
    run.finish("b")
    #expect(run.state("c") == .ready)
  }

  @Test func jobGoesThroughEveryStateInOrder() {
    let run = QueueHarness("a")
    run.start()
    run.runToEnd()
    #expect(run.log.lines == ["a pending>ready", "a ready>executing", "a executing>finished succeeded"])
  }

  @Test func finishedTransitionCarriesOutcomeAndDuration() {
    let run = QueueHarness("a")
    run.start()
    run.now = 1.5
    run.launch()
    run.now = 4
    run.fail("a")
    let finished = run.log.transitions.last!
    #expect(finished.outcome == .failed)
    #expect(finished.duration == 2.5)
    #expect(run.log.events.last?.time == 4)
  }

  @Test func jobThatNeverExecutedHasZeroDuration() {
    let run = QueueHarness("a")
    run.start()
    run.now = 3
    run.engine.cancel(run.id("a"), reason: .control)
    run.launch()
    #expect(run.log.transitions.last?.duration == 0)
  }

  @Test func launchedJobHoldsASlotButStaysReadyUntilItStarts() {
    let run = QueueHarness("queue main max=1\na\nb")
    run.start()
    let launches = run.engine.nextLaunches()
    #expect(launches == [Launch(job: run.id("a"), attempt: 1)])
    #expect(run.state("a") == .ready)
    #expect(run.engine.runningCount(queue: 0) == 1)
    #expect(run.engine.nextLaunches().isEmpty)
  }

  @Test func runDrainsWhenEveryJobHasFinished() {
    let run = QueueHarness("a\nb <- a")
    run.start()
    #expect(!run.engine.isDrained)
    run.runToEnd()
    #expect(run.engine.isDrained)
    #expect(run.engine.counts[.succeeded] == 2)
    #expect(run.engine.counts[.failed] == 0)
  }

  @Test func emptyGraphIsDrainedAtStart() {
    let run = QueueHarness("")
    run.start()
    #expect(run.engine.isDrained)
    #expect(run.engine.exitStatus() == 0)
  }

  @Test func observersReceiveEventsInTheOrderTheyWereAdded() {
    final class Tagger: RunObserver {
      let tag: String
      let sink: EventLogSink
      init(_ tag: String, _ sink: EventLogSink) {
        self.tag = tag
        self.sink = sink
      }
      func observe(_ event: RunEvent) { sink.tags.append(tag) }
    }
    final class EventLogSink { var tags: [String] = [] }
    let sink = EventLogSink()
    let run = QueueHarness("a")
    run.engine.addObserver(Tagger("first", sink))
    run.engine.addObserver(Tagger("second", sink))
    run.start()
    #expect(sink.tags == ["first", "second"])
  }
}
