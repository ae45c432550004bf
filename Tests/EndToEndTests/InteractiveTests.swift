import Foundation
import Testing

/// `interactive: true` (SPEC §5): the job gets oprun's own standard input and output, and at
/// most one interactive job runs at a time, whatever the queues allow.
@Suite struct InteractiveTests {
  @Test func interactiveJobsRunOneAtATimeWhileOthersRunBesideThem() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 3
      jobs:
        first:
          command: touch first.started; while [ ! -f go ]; do sleep 0.01; done
          interactive: true
        second:
          command: echo second ran
          interactive: true
        plain:
          command: touch plain.ran
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilExists("first.started")
    try folder.waitUntilFinished("plain")
    #expect(!folder.events.executed("second"), "the console is taken by first")
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0)
    let log = folder.events
    #expect(log.index(of: "second", to: "executing")! > log.index(of: "first", to: "finished")!)
    expectStreamContract(log)
  }

  @Test func interactiveJobWritesStraightToOprunsOutputWithoutAPrefix() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        talk:
          command: echo straight through; readlink /proc/self/fd/0
          interactive: true
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0)
    // The job writes as soon as it starts, so its lines may come before or after the
    // `executing` line; each comes whole and unprefixed.
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.contains("straight through"))
    #expect(lines.contains("/dev/null"))
    #expect(!run.stdout.contains("talk | "))
  }
}
