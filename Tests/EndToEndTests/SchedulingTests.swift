import Foundation
import Testing

/// Start order and concurrency limits (SPEC §3.2, §3.3), read from the event stream.
@Suite struct SchedulingTests {
  @Test func serialQueueStartsReadyJobsHighestPriorityFirstAndFIFOWithinABand() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      name: main
      max-concurrent: 1
      jobs:
        blocker: {command: sleep 0.05, priority: veryHigh}
        low-1: {command: 'true', priority: low}
        normal-1: {command: 'true'}
        high-1: {command: 'true', priority: high}
        very-low: {command: 'true', priority: -8}
        normal-2: {command: 'true', priority: normal}
        high-2: {command: 'true', priority: 4}
        low-2: {command: 'true', priority: low}
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0)
    let log = folder.events
    #expect(
      log.order(of: "executing")
        == ["blocker", "high-1", "high-2", "normal-1", "normal-2", "low-1", "low-2", "very-low"])
    expectStreamContract(log)
  }

  @Test func qosSetsThePriorityBandOnAConcurrentQueueButNotOnASerialOne() throws {
    let folder = try Scratch()
    let jobs = { (queue: String) in
      """
        \(queue)-background: {command: 'true', qos: background, queue: \(queue)}
        \(queue)-utility: {command: 'true', qos: utility, queue: \(queue)}
        \(queue)-default: {command: 'true', queue: \(queue)}
        \(queue)-initiated: {command: 'true', qos: userInitiated, queue: \(queue)}
        \(queue)-interactive: {command: 'true', qos: userInteractive, queue: \(queue)}
        \(queue)-explicit-low: {command: 'true', qos: userInteractive, priority: low, queue: \(queue)}
      """
    }
    try folder.manifest(
      """
      name: main
      queues:
        wide: {max-concurrent: 2}
        serial: {max-concurrent: 1}
      jobs:
        idle: {command: 'true'}
      \(jobs("wide"))
      \(jobs("serial"))
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    #expect(
      log.order(of: "executing", queue: "wide")
        == [
          "wide-interactive", "wide-initiated", "wide-default", "wide-utility", "wide-explicit-low", "wide-background",
        ])
    #expect(
      log.order(of: "executing", queue: "serial")
        == [
          "serial-background", "serial-utility", "serial-default", "serial-initiated", "serial-interactive",
          "serial-explicit-low",
        ])
    expectStreamContract(log)
  }

  @Test func noQueueEverExecutesMoreJobsThanItsLimit() throws {
    let folder = try Scratch()
    var jobs = ""
    for queue in ["main", "one", "two"] {
      for index in 1...6 {
        jobs += "  \(queue)-\(index): {command: sleep 0.05, queue: \(queue)}\n"
      }
    }
    try folder.manifest(
      """
      name: main
      max-concurrent: 3
      queues:
        one: {max-concurrent: 1}
        two: {max-concurrent: 2}
      jobs:
      \(jobs)
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    // All ready at the start, so each queue fills every slot in its first round.
    #expect(log.mostExecutingAtOnce == ["main": 3, "one": 1, "two": 2])
    expectStreamContract(log)
  }

  @Test func maxConcurrentFlagLimitsEveryQueue() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      name: main
      max-concurrent: 4
      queues:
        other: {max-concurrent: 3}
      jobs:
        a: {command: sleep 0.02}
        b: {command: sleep 0.02}
        c: {command: sleep 0.02, queue: other}
        d: {command: sleep 0.02, queue: other}
      """)
    let run = try runOprun(runArguments(["-j", "1"]), in: folder)
    #expect(run.status == 0)
    let log = folder.events
    #expect(log.mostExecutingAtOnce == ["main": 1, "other": 1])
    let queues = log.named("run-started").first?["queues"] as? [String: Any]
    #expect(queues?.mapValues { ($0 as? NSNumber)?.intValue } == ["main": 1, "other": 1])
  }

  @Test func severalCommandsOfOneJobRunConcurrentlyAndCountAsOneOperation() throws {
    let folder = try Scratch()
    // Each command waits for the other's file: they can only both finish if they run at once.
    try folder.manifest(
      """
      max-concurrent: 1
      jobs:
        pair:
          commands:
            - touch left; while [ ! -f right ]; do sleep 0.01; done
            - touch right; while [ ! -f left ]; do sleep 0.01; done
        after: {command: 'true'}
      """)
    let run = try runOprun(runArguments(["--grace", "0.2"]), in: folder)
    #expect(run.status == 0)
    let log = folder.events
    #expect(log.pids(of: "pair").count == 2)
    #expect(log.outcome(of: "pair") == "succeeded")
    #expect(log.mostExecutingAtOnce == ["jobs": 1])
    expectStreamContract(log)
  }
}
