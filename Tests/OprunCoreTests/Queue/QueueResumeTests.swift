import PropertyBased
import Testing

@testable import OprunCore

/// SPEC §9: under `--resume`, a resumed job goes pending → ready → finished at once,
/// outcome `succeeded`, `resumed: true`, without executing and without taking a slot; every
/// job's first transition carries what was decided for it.
@Suite struct QueueResumeTests {
  @Test func resumedJobsFinishAtOnceWithoutBeingLaunched() {
    let run = QueueHarness("a\nb\nc <- a\nd <- b", resume: ["a": .resumed, "c": .resumed])
    run.start()
    #expect(
      run.log.lines == [
        "a pending>ready", "a ready>finished succeeded resumed", "c pending>ready",
        "c ready>finished succeeded resumed", "b pending>ready",
      ])
    #expect(run.outcome("a") == .succeeded)
    #expect(run.outcome("c") == .succeeded)
    #expect(run.runToEnd() == ["b", "d"])
    #expect(run.log.lines(of: "b") == ["b pending>ready", "b ready>executing", "b executing>finished succeeded"])
    #expect(run.engine.isDrained)
    #expect(run.engine.counts[.succeeded] == 4)
    #expect(run.engine.exitStatus() == 0)
  }

  @Test func aResumedJobNeverComesOutOfNextLaunch() {
    let run = QueueHarness("a\nb <- a\nc", resume: ["a": .resumed, "b": .resumed, "c": .resumed])
    run.start()
    #expect(run.engine.nextLaunch() == nil)
    #expect(run.engine.isDrained)
    #expect(run.log.transitions.filter { $0.to == .executing }.isEmpty)
  }

  @Test func aResumedFinishCarriesSucceededResumedAndNoDuration() throws {
    let run = QueueHarness("a", resume: ["a": .resumed])
    run.now = 7
    run.start()
    let finished = try #require(run.log.transitions.last)
    #expect(finished.from == .ready)
    #expect(finished.to == .finished)
    #expect(finished.outcome == .succeeded)
    #expect(finished.resumed)
    #expect(finished.duration == 0)
    #expect(finished.termination == nil)
    #expect(finished.attempt == 1)
    #expect(run.log.events.last?.time == 7)
  }

  @Test func aResumedJobTakesNoSlot() {
    let run = QueueHarness("queue main max=1\na\nb", resume: ["a": .resumed])
    run.start()
    #expect(run.engine.runningCount(queue: 0) == 0)
    #expect(run.launch() == ["b"])
    #expect(run.engine.runningCount(queue: 0) == 1)
  }

  @Test func aResumedJobFinishesWhileTheOnlySlotIsTaken() {
    let run = QueueHarness("queue main max=1\nx\na\nb <- a\nc <- a", resume: ["a": .resumed, "c": .resumed])
    run.start()
    #expect(run.state("a") == .finished)
    #expect(run.state("c") == .finished)
    #expect(run.launch() == ["x"])
    #expect(run.state("b") == .ready, "b waits for the slot x holds")
    run.finish("x")
    #expect(run.launch() == ["b"])
  }

  @Test func aJobBecomingReadyLaterIsResumedAsSoonAsItsLastDependencyFinishes() {
    let run = QueueHarness("queue main max=1\na\nb <- a\nc <- b", resume: ["b": .resumed])
    run.start()
    #expect(run.launch() == ["a"])
    run.log.clear()
    run.finish("a")
    #expect(
      run.log.lines == [
        "a executing>finished succeeded", "b pending>ready", "b ready>finished succeeded resumed",
        "c pending>ready",
      ])
    #expect(run.launch() == ["c"])
  }

  @Test func everyJobsFirstTransitionCarriesItsDecisionAndNoOtherDoes() {
    let decisions: [String: RunDecision] = [
      "a": .resumed, "b": .runs(.lastOutcome(.failed)), "c": .runs(.dependencyRuns(1, origin: 1)),
      "d": .runs(.changed([.command, .env])),
    ]
    let run = QueueHarness("a\nb\nc <- b\nd", resume: decisions)
    run.start()
    run.runToEnd()
    for job in ["a", "b", "c", "d"] {
      let transitions = run.log.transitions.filter { $0.job == run.id(job) }
      #expect(transitions.first?.from == .pending)
      #expect(transitions.first?.decision == decisions[job], "\(job)")
      #expect(transitions.dropFirst().allSatisfy { $0.decision == nil }, "\(job)")
    }
  }

  @Test func withoutAPlanNoTransitionCarriesADecisionOrIsResumed() {
    let run = QueueHarness("a\nb <- a")
    run.start()
    run.runToEnd()
    #expect(run.log.transitions.allSatisfy { $0.decision == nil && !$0.resumed })
  }

  @Test func aCancelledPendingJobCarriesItsDecisionAndIsNotResumed() {
    let run = QueueHarness("a\nb <- a", resume: ["b": .resumed])
    run.start()
    run.engine.cancel(run.id("b"), reason: .control)
    run.runToEnd()
    let first = run.log.transitions.first { $0.job == run.id("b") }
    #expect(first?.decision == .resumed)
    #expect(run.outcome("b") == .cancelled)
    #expect(run.log.transitions.allSatisfy { !$0.resumed })
  }

  @Test func aResumedJobWhoseRunIfDoesNotHoldIsSkippedNotResumed() {
    let run = QueueHarness("a\nb <- a", failurePolicy: .continue, resume: ["b": .resumed])
    run.start()
    #expect(run.launch() == ["a"])
    run.fail("a")
    run.runToEnd()
    #expect(run.outcome("b") == .skipped)
    #expect(run.log.lines(of: "b") == ["b pending>ready", "b cancelled dependency-failed", "b ready>finished skipped"])
    #expect(run.log.transitions.allSatisfy { !$0.resumed })
  }

  @Test func aResumedRunIfFailureJobAfterSuccessesIsSkippedNotResumed() {
    let run = QueueHarness("a\nreport <- a run-if=failure", resume: ["a": .resumed, "report": .resumed])
    run.start()
    run.runToEnd()
    #expect(run.outcome("a") == .succeeded)
    #expect(run.outcome("report") == .skipped)
    #expect(run.log.lines(of: "report").last == "report ready>finished skipped")
  }

  @Test func aResumedRunIfAlwaysJobAfterAFailureIsResumed() {
    let run = QueueHarness("a\ncleanup <- a run-if=always", failurePolicy: .stop, resume: ["cleanup": .resumed])
    run.start()
    run.runToEnd(failing: ["a"])
    #expect(run.outcome("cleanup") == .succeeded)
    #expect(run.log.lines(of: "cleanup").last == "cleanup ready>finished succeeded resumed")
  }

  @Test func aResumedJobsDependentsAreReleasedAsAfterAnySuccess() {
    let run = QueueHarness(
      "a\nok <- a\nrescue <- a run-if=failure\nafter <- a run-if=always", failurePolicy: .continue,
      resume: ["a": .resumed])
    run.start()
    run.runToEnd()
    #expect(run.outcome("ok") == .succeeded)
    #expect(run.outcome("rescue") == .skipped)
    #expect(run.outcome("after") == .succeeded)
    #expect(run.log.lines(of: "ok").contains("ok executing>finished succeeded"))
  }

  @Test func aResumedJobWithResumedDependentsFinishesBeforeThemInAnOrderTheGraphAllows() {
    let run = QueueHarness(
      "a\nb <- a\nc <- a\nd <- b,c\ne <- b", resume: ["a": .resumed, "b": .resumed, "c": .resumed, "d": .resumed])
    run.start()
    #expect(run.launch() == ["e"])
    let finished = run.log.transitions.filter { $0.to == .finished }.map { run.graph.jobs[$0.job].name }
    #expect(Set(finished) == ["a", "b", "c", "d"])
    for job in run.graph.jobs where finished.contains(job.name) {
      for dependency in job.dependencies {
        #expect(finished.firstIndex(of: run.graph.jobs[dependency].name)! < finished.firstIndex(of: job.name)!)
      }
    }
  }

  @Test func aChainOfAHundredThousandResumedJobsFinishesAtStart() {
    let count = 100_000
    let jobs = (0..<count).map { id in
      JobNode(
        id: id, name: "j\(id)", queue: 0, dependencies: id == 0 ? [] : [id - 1], commands: ["true"],
        location: SourceLocation(file: "jobs.yaml", line: id + 1, column: 1))
    }
    let graph = connected(
      JobGraph(
        manifest: Manifest(path: "jobs.yaml", name: "main"), queues: [QueueNode(name: "main", maxConcurrent: 1)],
        jobs: jobs))
    let fingerprints = graph.fingerprints()
    let records = Dictionary(
      uniqueKeysWithValues: zip(graph.jobs, fingerprints).map { job, fingerprint in
        (job.name, JournalRecord(job: job.name, outcome: .succeeded, fingerprint: fingerprint.value))
      })
    let plan = ResumePlan(graph: graph, fingerprints: fingerprints, records: records, journalRun: "last")
    #expect(plan.resumedCount == count)
    let engine = QueueEngine(graph: graph, failurePolicy: .stop, resumePlan: plan, clock: { 0 })
    engine.start()
    #expect(engine.isDrained)
    #expect(engine.counts[.succeeded] == count)
    #expect(engine.nextLaunch() == nil)
  }

  // MARK: - Random runs

  @Test func randomRunsWithRandomResumePlansKeepEveryQueueInvariantAndDrain() async {
    await propertyCheck(count: 150, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 1...200)) { seed, jobCount in
      var random = SeededGenerator(seed: seed)
      let scenario = RandomScenario(jobCount: jobCount, random: &random)
      let decisions = scenario.graph.jobs.map { _ in
        random.chance(0.6) ? RunDecision.resumed : .runs(random.pick([.noJournal, .notInLastRun, .changed([])]))
      }
      let plan = ResumePlan(decisions: decisions, journalRun: "last")
      var driver = RandomDriver(scenario: scenario, steering: random.chance(0.5), resumePlan: plan)
      let violations = driver.run(&random)
      #expect(violations.isEmpty, "\(violations.prefix(5))")
      for job in scenario.graph.jobs.indices where driver.engine.outcome(of: job) == .succeeded {
        let resumed = driver.checker.resumedJobs.contains(job)
        #expect(!resumed || decisions[job] == .resumed)
      }
    }
  }
}
