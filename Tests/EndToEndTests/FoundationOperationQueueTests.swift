// swift-corelibs-foundation's Tests/Foundation/TestOperationQueue.swift, as end-to-end tests
// of oprun: each test below mirrors one of Foundation's, expressed with a manifest, the
// command line and `oprun ctl`, and asserted on the event stream.
//
// Foundation tests that a manifest, the command line and `oprun ctl` cannot express:
// - test_AsyncOperation: subclasses Operation (isExecuting/isFinished overridden by hand) and
//   calls start() itself; a job is a command, not a subclass, and only its queue starts it.
// - test_SyncOperationWithoutAQueue, test_CancelOutOfQueue: an operation started or cancelled
//   outside any queue; every job of oprun belongs to a queue of the run.
// - test_MainQueueGetter, test_CurrentQueueOnMainQueue: OperationQueue.main is the process's
//   main thread's queue; oprun's "main queue" is only the manifest's top-level queue.
// - test_CurrentQueueOnBackgroundQueue, test_CurrentQueueOnBackgroundQueueWithSelfCancel:
//   OperationQueue.current read from inside an operation; a job only sees OPRUN_QUEUE, a name.
// - test_CurrentQueueWithCustomUnderlyingQueue, test_CurrentQueueWithUnderlyingQueueResetToNil:
//   the underlying DispatchQueue has no counterpart (a job is a process, not a block).
// - test_OperationWaitUntilFinished: Operation.waitUntilFinished() by a caller on one job;
//   `oprun ctl` has no request that blocks until one job finishes (only watch follows it).
// - test_CustomOperationReady: a custom isReady; a job is ready only by its dependencies.
// - test_DependencyCycleBreak: a dependency cycle is a manifest error (exit 2, SPEC §1), so no
//   run exists in which cancelling one job could break it.
// - test_Deadlock's weak release of the queue object, test_Lifecycle's deallocation check and
//   test_OperationDependencyCount's `dependencies.count` getter: object lifetimes and getters
//   of the API; what is expressible of those tests (the order and the state) is kept below.
import Foundation
import Testing

@Suite struct FoundationOperationQueueTests {
  /// Mirrors Foundation's `test_OperationCount`.
  @Test func operationCount() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        op1: {command: "\(waitFor("go"))"}
        op2: {command: "\(waitFor("go2"))", dependencies: [op1]}
        op3: {command: "\(waitFor("go2"))", dependencies: [op1]}
      """)
    let run = try scene.startRun()
    try waitUntil("op1 executing") { run.log.executed("op1") }
    #expect(try scene.status().unfinished == ["op1", "op2", "op3"])
    scene.folder.touch("go")
    try waitUntil("op2 and op3 executing") { run.log.executed("op2") && run.log.executed("op3") }
    #expect(try scene.status().unfinished == ["op2", "op3"])
    scene.folder.touch("go2")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    let counts = try #require(log.named("run-finished").first?["counts"] as? [String: Any])
    #expect(counts.int("succeeded") == 3)
    #expect(counts.filter { $0.key != "succeeded" }.allSatisfy { ($0.value as? NSNumber)?.intValue == 0 })
  }

  /// Mirrors Foundation's `test_OperationPriorities`.
  @Test func operationPriorities() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 1
      jobs:
        gate: {command: "\(waitFor("go"))", priority: veryHigh}
        op1: {command: "true", priority: normal}
        op2: {command: "true", priority: low}
        op3: {command: "true", priority: veryHigh}
        op4: {command: "true", priority: veryLow}
      """)
    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    expectStreamContract(run.log)
    #expect(run.log.order(of: "executing") == ["gate", "op3", "op1", "op2", "op4"])
  }

  /// Mirrors Foundation's `test_isExecutingWorks`.
  @Test func isExecutingWorks() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        op: {command: "\(waitFor("go"))"}
        after: {command: "\(waitFor("go2"))", dependencies: [op]}
      """)
    let run = try scene.startRun()
    try waitUntil("op executing") { run.log.executed("op") }
    let during = try scene.status()
    #expect(during.job("op")?.string("state") == "executing")
    #expect(during.job("op")?.isNull("outcome") == true)
    #expect(during.job("after")?.string("state") == "pending")
    scene.folder.touch("go")
    try waitUntil("after executing") { run.log.executed("after") }
    let afterwards = try scene.status()
    #expect(afterwards.job("op")?.string("state") == "finished")
    #expect(afterwards.job("op")?.string("outcome") == "succeeded")
    scene.folder.touch("go2")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    expectStreamContract(run.log)
  }

  /// Mirrors Foundation's `test_CancelOneOperation`.
  @Test func cancelOneOperation() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 1
      jobs:
        op0: {command: "touch ran-0; \(waitFor("go"))"}
        op1: {command: touch ran-1}
        op2: {command: touch ran-2}
        op3: {command: touch ran-3}
        op4: {command: touch ran-4}
      """)
    let run = try scene.startRun()
    try waitUntil("op0 executing") { run.log.executed("op0") }
    try scene.steer(["cancel", "op2"])
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(!log.executed("op2"))
    #expect(!scene.folder.exists("ran-2"))
    #expect(log.outcome(of: "op2") == "cancelled")
    #expect(log.order(of: "executing") == ["op0", "op1", "op3", "op4"])
  }

  /// Mirrors Foundation's `test_CancelOperationsOfSpecificQueuePriority`.
  @Test func cancelOperationsOfSpecificQueuePriority() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 1
      jobs:
        op1: {command: "\(waitFor("go"))", priority: high}
        op2: {command: "true", priority: high}
        op3: {command: "true", priority: normal}
        op4: {command: "true", priority: normal}
        op5: {command: "true", priority: normal}
      """)
    let run = try scene.startRun()
    try waitUntil("op1 executing") { run.log.executed("op1") }
    let status = try scene.status()
    let highBand = status.job("op1")?["priority"].map { "\($0)" }
    let normal = status.jobs.filter { job in
      job["priority"].map { "\($0)" } != highBand && job.string("state") != "executing"
    }.compactMap { $0.string("name") }
    #expect(normal == ["op3", "op4", "op5"])
    try scene.steer(["cancel"] + normal)
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(log.order(of: "executing") == ["op1", "op2"])
    for job in ["op3", "op4", "op5"] {
      #expect(log.outcome(of: job) == "cancelled", "\(job)")
    }
  }

  /// Mirrors Foundation's `test_isSuspended`.
  @Test func isSuspended() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 1
      jobs:
        gate: {command: "\(waitFor("go"))"}
        op: {command: "\(waitFor("go2"))"}
      """)
    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["suspend", "main"])
    #expect(try scene.status().queue("main")?["suspended"] as? Bool == true)
    scene.folder.touch("go")
    try waitUntil("gate finished") { run.log.finish(of: "gate") != nil }
    #expect(try scene.status().job("op")?.string("state") == "ready")
    try scene.steer(["resume", "main"])
    try waitUntil("op executing") { run.log.executed("op") }
    #expect(try scene.status().queue("main")?["suspended"] as? Bool == false)
    scene.folder.touch("go2")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(try #require(log.index(of: "op", to: "executing")) > (try #require(log.controlIndex("resume"))))
  }

  /// Mirrors Foundation's `test_OperationDependencyCount` (a dependency holds its dependent).
  @Test func operationDependencyCount() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        op1: {command: "true", dependencies: [op2]}
        op2: {command: "\(waitFor("go"))"}
      """)
    let run = try scene.startRun()
    try waitUntil("op2 executing") { run.log.executed("op2") }
    #expect(try scene.status().job("op1")?.string("state") == "pending")
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(
      try #require(log.index(of: "op1", to: "ready")) > (try #require(log.index(of: "op2", to: "finished"))))
  }

  /// Mirrors Foundation's `test_CancelDependency`.
  @Test func cancelDependency() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 1
      jobs:
        gate: {command: "\(waitFor("go"))"}
        op1: {command: touch ran-op1}
        op2: {command: touch ran-op2, dependencies: [op1], run-if: always}
        op3: {command: touch ran-op3, dependencies: [op1]}
      """)
    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["cancel", "op1"])
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(!log.executed("op1") && !scene.folder.exists("ran-op1"))
    #expect(log.outcome(of: "op1") == "cancelled")
    let op1Finished = try #require(log.index(of: "op1", to: "finished"))
    #expect(try #require(log.index(of: "op2", to: "ready")) > op1Finished)
    #expect(try #require(log.index(of: "op3", to: "ready")) > op1Finished)
    #expect(log.outcome(of: "op2") == "succeeded" && scene.folder.exists("ran-op2"))
    #expect(log.outcome(of: "op3") == "skipped" && !scene.folder.exists("ran-op3"))
  }

  /// Mirrors Foundation's `test_Deadlock` (a serial queue whose first job depends on a later one).
  @Test func deadlock() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 1
      jobs:
        op1: {command: "true", dependencies: [op2]}
        op2: {command: "true"}
      """)
    let finished = try runOprun(runArguments(), in: scene.folder, environment: scene.environment)
    #expect(finished.status == 0, "\(finished.stderr)")
    expectStreamContract(scene.folder.events)
    #expect(scene.folder.events.order(of: "executing") == ["op2", "op1"])
  }

  /// Mirrors Foundation's `test_CrossQueueDependency`.
  @Test func crossQueueDependency() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: queue
      queues:
        queue2: {max-concurrent: 1}
      jobs:
        op1: {command: "true", dependencies: [op2]}
        op2: {command: "\(waitFor("go"))", queue: queue2}
      """)
    let run = try scene.startRun()
    try waitUntil("op2 executing") { run.log.executed("op2") }
    #expect(try scene.status().job("op1")?.string("state") == "pending")
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    #expect(log.outcome(of: "op1") == "succeeded" && log.outcome(of: "op2") == "succeeded")
    #expect(log.named("transition", job: "op1").first?.string("queue") == "queue")
    #expect(log.named("transition", job: "op2").first?.string("queue") == "queue2")
    #expect(
      try #require(log.index(of: "op1", to: "executing")) > (try #require(log.index(of: "op2", to: "finished"))))
  }

  /// Mirrors Foundation's `test_CancelWhileSuspended`.
  @Test func cancelWhileSuspended() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 1
      jobs:
        gate: {command: "\(waitFor("go"))", priority: veryHigh}
        op1: {command: touch ran-op1}
        op2: {command: touch ran-op2}
      """)
    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["suspend", "main"])
    try scene.steer(["cancel", "op1", "op2"])
    scene.folder.touch("go")
    try waitUntil("gate finished") { run.log.finish(of: "gate") != nil }
    let suspended = try scene.status()
    #expect(suspended.queue("main")?["suspended"] as? Bool == true)
    for job in ["op1", "op2"] {
      #expect(suspended.job(job)?.string("state") != "finished", "\(job) finished in a suspended queue")
      #expect(suspended.job(job)?["cancelled"] as? Bool == true, "\(job)")
    }
    try scene.steer(["resume", "main"])
    let finished = run.process.wait()

    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    let resumed = try #require(log.controlIndex("resume"))
    for job in ["op1", "op2"] {
      #expect(!log.executed(job) && !scene.folder.exists("ran-\(job)"), "\(job)")
      #expect(log.outcome(of: job) == "cancelled", "\(job)")
      #expect(try #require(log.index(of: job, to: "finished")) > resumed, "\(job)")
    }
  }

  /// Mirrors Foundation's `test_OperationOrder`.
  @Test func operationOrder() throws {
    let order = try suspendedSerialQueueOrder(priorities: ["normal", "normal", "normal", "normal", "normal"])
    #expect(order == ["op1", "op2", "op3", "op4", "op5"])
  }

  /// Mirrors Foundation's `test_OperationOrder2`.
  @Test func operationOrder2() throws {
    let order = try suspendedSerialQueueOrder(priorities: ["veryLow", "low", "normal", "high", "veryHigh"])
    #expect(order == ["op5", "op4", "op3", "op2", "op1"])
  }

  /// Five jobs `op1`… of `priorities` queued behind a gate on a serial queue that is
  /// suspended while the gate runs and resumed once it has finished: their start order.
  private func suspendedSerialQueueOrder(priorities: [String]) throws -> [String] {
    let scene = try ControlScene()
    let jobs = priorities.enumerated().map { "  op\($0.offset + 1): {command: \"true\", priority: \($0.element)}" }
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 1
      jobs:
        gate: {command: "\(waitFor("go"))", priority: veryHigh}
      \(jobs.joined(separator: "\n"))
      """)
    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["suspend", "main"])
    scene.folder.touch("go")
    try waitUntil("gate finished") { run.log.finish(of: "gate") != nil }
    try scene.steer(["resume", "main"])
    let finished = run.process.wait()
    #expect(finished.status == 0, "\(finished.stderr)")
    expectStreamContract(run.log)
    return run.log.order(of: "executing").filter { $0 != "gate" }
  }

  /// Mirrors Foundation's `test_ExecutionOrder`.
  @Test func executionOrder() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        op1: {command: "test -e ran-dependency", dependencies: [op1-dependency]}
        op1-dependency: {command: touch ran-dependency}
        op2: {command: "true"}
      """)
    let finished = try runOprun(runArguments(), in: scene.folder, environment: scene.environment)
    #expect(finished.status == 0, "\(finished.stderr)")
    let log = scene.folder.events
    expectStreamContract(log)
    for job in ["op1", "op1-dependency", "op2"] {
      #expect(log.outcome(of: job) == "succeeded", "\(job)")
    }
    #expect(
      try #require(log.index(of: "op1", to: "executing"))
        > (try #require(log.index(of: "op1-dependency", to: "finished"))))
  }

  /// Mirrors Foundation's `test_Lifecycle` (op2 cancelled while it runs; op1 depends on it).
  @Test func lifecycle() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        op1: {command: "true", dependencies: [op2], run-if: always}
        op2: {command: "\(waitFor("go"))"}
      """)
    let run = try scene.startRun(["--grace", "1"])
    try waitUntil("op2 executing") { run.log.executed("op2") }
    try scene.steer(["cancel", "op2"])
    let finished = run.process.wait()

    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    let moves = { (job: String) in
      log.named("transition", job: job).map { "\($0.string("from")!)>\($0.string("to")!)" }
    }
    #expect(moves("op2") == ["pending>ready", "ready>executing", "executing>finished"])
    #expect(moves("op1") == ["pending>ready", "ready>executing", "executing>finished"])
    #expect(log.outcome(of: "op2") == "cancelled")
    #expect(log.outcome(of: "op1") == "succeeded")
    #expect(try #require(log.index(of: "op1", to: "ready")) > (try #require(log.index(of: "op2", to: "finished"))))
    expectNoProcessLeft(log)
  }

  /// Mirrors Foundation's `test_ConcurrentOperations`: in each of three rounds, op1 finishes
  /// only once op2 has run, which it can only do beside op1 on a queue of two.
  @Test func concurrentOperations() throws {
    let scene = try ControlScene()
    let rounds = (1...3).map { round in
      let previous = round == 1 ? "" : ", dependencies: [op1-\(round - 1), op2-\(round - 1)]"
      return """
          op1-\(round): {command: "\(waitFor("ran-op2-\(round)"))"\(previous)}
          op2-\(round): {command: touch ran-op2-\(round)\(previous)}
        """
    }
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 2
      jobs:
      \(rounds.joined(separator: "\n"))
      """)
    let finished = try runOprun(runArguments(), in: scene.folder, environment: scene.environment)
    #expect(finished.status == 0, "\(finished.stderr)")
    let log = scene.folder.events
    expectStreamContract(log)
    #expect(log.mostExecutingAtOnce["main"] == 2)
    #expect((log.named("run-finished").first?["counts"] as? [String: Any])?.int("succeeded") == 6)
  }

  /// Mirrors Foundation's `test_ConcurrentOperationsWithDependenciesAndCompletions`.
  @Test func concurrentOperationsWithDependenciesAndCompletions() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      max-concurrent: 2
      jobs:
        op1:
          command: "test -e ran-dependency; \(waitFor("ran-op2"))"
          dependencies: [op1-dependency]
          completion: touch ran-op1-completion
        op1-dependency: {command: touch ran-dependency}
        op2: {command: touch ran-op2}
      """)
    let finished = try runOprun(runArguments(), in: scene.folder, environment: scene.environment)
    #expect(finished.status == 0, "\(finished.stderr)")
    let log = scene.folder.events
    expectStreamContract(log)
    #expect(log.outcome(of: "op1") == "succeeded")
    #expect(scene.folder.exists("ran-op1-completion"))
    #expect(log.named("completion", job: "op1").first?.int("exit_code") == 0)
    #expect((log.mostExecutingAtOnce["main"] ?? 0) <= 2)
  }

  /// Mirrors Foundation's `test_WaitUntilFinished`: oprun ends right after its last job.
  @Test func waitUntilFinished() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: queue1
      queues:
        queue2: {max-concurrent: 1}
      jobs:
        op1: {command: "\(waitFor("go"))"}
        op2: {command: "true", dependencies: [op1], queue: queue2}
      """)
    let run = try scene.startRun()
    try waitUntil("op1 executing") { run.log.executed("op1") }
    #expect(run.process.process.isRunning)
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    let op2Finished = try #require(log.index(of: "op2", to: "finished"))
    #expect(log.events[(op2Finished + 1)...].allSatisfy { $0.string("event") != "transition" })
    #expect(try scene.ctl(["list", "--json"]).stdout == "[]\n")
    expectNoProcessLeft(log)
  }

  /// Mirrors Foundation's `test_BlockOperationAddExecutionBlock`: a job's several `commands`
  /// are one operation's execution blocks.
  @Test func blockOperationAddExecutionBlock() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        block-operation:
          commands: [touch ran-block-1, touch ran-block-2]
      """)
    let finished = try runOprun(runArguments(), in: scene.folder, environment: scene.environment)
    #expect(finished.status == 0, "\(finished.stderr)")
    let log = scene.folder.events
    expectStreamContract(log)
    #expect(log.pids(of: "block-operation").count == 2)
    #expect(scene.folder.exists("ran-block-1") && scene.folder.exists("ran-block-2"))
  }
}

extension RunStatus {
  /// The jobs not yet finished, in manifest order: the queue's `operations`.
  var unfinished: [String] {
    jobs.filter { $0.string("state") != "finished" }.compactMap { $0.string("name") }
  }
}
