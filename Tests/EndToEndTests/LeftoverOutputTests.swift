import Foundation
import Testing

/// What a job's leftover processes write after the job finished is printed too, attributed
/// to the job, until the pipe closes or the run ends (SPEC §2).
@Suite struct LeftoverOutputTests {
  /// `a` leaves a subshell behind that writes once the test says so (after `a` finished);
  /// `b` keeps the run going until it has.
  static let lateWriter = """
    max-concurrent: 2
    jobs:
      a:
        command: (while [ ! -f go ]; do sleep 0.01; done; echo late from a; touch said) & echo early
      b:
        command: while [ ! -f said ]; do sleep 0.01; done
    """

  @Test(arguments: ["prefixed", "grouped", "raw"])
  func whatALeftoverWritesAfterItsJobFinishedIsPrinted(mode: String) throws {
    let folder = try Scratch()
    try folder.manifest(Self.lateWriter)
    let oprun = try OprunProcess(runArguments(["--output", mode]), in: folder)
    try folder.waitUntilFinished("a")
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let finishedA = try #require(lines.firstIndex { $0.contains("finished    a ") }, "\(run.stdout)")
    let summary = try #require(lines.firstIndex { $0.hasPrefix("── summary") }, "\(run.stdout)")
    let late: Int
    switch mode {
    case "prefixed":
      late = try #require(lines.firstIndex(of: "a | late from a"), "\(run.stdout)")
    case "grouped":
      // A further block under the job's header, after its first one.
      #expect(lines.filter { $0 == "── a" }.count == 2, "\(run.stdout)")
      #expect(run.stdout.contains("── a\nearly\n"), "\(run.stdout)")
      late = try #require(lines.firstIndex(of: "late from a"), "\(run.stdout)")
      #expect(lines[late - 1] == "── a", "\(run.stdout)")
    default:
      late = try #require(lines.firstIndex(of: "late from a"), "\(run.stdout)")
    }
    #expect(finishedA < late && late < summary, "\(run.stdout)")
    expectStreamContract(folder.events)
  }

  @Test func whatALeftoverLeftInItsPipeIsPrintedWhenTheRunEndsAPartialLineToo() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 2
      jobs:
        a:
          command: sh -c 'while [ ! -f go ]; do sleep 0.01; done; echo late line; printf late-partial; touch said; exec sleep 1000' & echo early
        b:
          command: while [ ! -f said ]; do sleep 0.01; done
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilFinished("a")
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    let summary = try #require(lines.firstIndex { $0.hasPrefix("── summary") }, "\(run.stdout)")
    let line = try #require(lines.firstIndex(of: "a | late line"), "\(run.stdout)")
    let partial = try #require(lines.firstIndex(of: "a | late-partial"), "\(run.stdout)")
    #expect(line < partial && partial < summary, "\(run.stdout)")
    let log = folder.events
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }

  @Test func aCompletionsLeftoverIsPrintedToo() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 2
      jobs:
        a:
          command: echo main
          completion: (while [ ! -f go ]; do sleep 0.01; done; echo late from completion; touch said) & echo completed
        b:
          command: while [ ! -f said ]; do sleep 0.01; done
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try waitUntil("a's completion") { !folder.events.named("completion", job: "a").isEmpty }
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    let completed = try #require(lines.firstIndex(of: "a | completed"), "\(run.stdout)")
    let late = try #require(lines.firstIndex(of: "a | late from completion"), "\(run.stdout)")
    let summary = try #require(lines.firstIndex { $0.hasPrefix("── summary") }, "\(run.stdout)")
    #expect(completed < late && late < summary, "\(run.stdout)")
  }

  @Test func aDetachedProcessIsReadALastTimeAndNotWaitedFor() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 2
      jobs:
        daemon:
          command: setsid sh -c 'echo $$ > daemon.pid; while [ ! -f go ]; do sleep 0.01; done; echo from the daemon; touch said; exec sleep 60' & while [ ! -s daemon.pid ]; do sleep 0.01; done
        waiter:
          command: while [ ! -f said ]; do sleep 0.01; done
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilFinished("daemon")
    let daemon = try #require(
      folder.read("daemon.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
    defer { kill(daemon, SIGKILL) }
    folder.touch("go")
    // Foundation's Process learns of an exit through a descriptor its child inherits,
    // which the daemon holds too: watch oprun itself end instead.
    try waitUntil("oprun to end") { !isAlive(oprun.pid) }
    #expect(isAlive(daemon), "the run ended without waiting for the daemon")
    kill(daemon, SIGKILL)
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    let late = try #require(lines.firstIndex(of: "daemon | from the daemon"), "\(run.stdout)")
    let summary = try #require(lines.firstIndex { $0.hasPrefix("── summary") }, "\(run.stdout)")
    #expect(late < summary, "\(run.stdout)")
  }

  @Test func aWatcherSeesWhatALeftoverWritesAfterItsJobFinished() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(Self.lateWriter)
    let run = try scene.startRun()
    try waitUntil("a finished") { run.log.finish(of: "a") != nil }
    let watch = try scene.startCtl(["watch", "--json"])
    try waitUntil("watch attached") { !watch.process.standardOutput.isEmpty || !watch.process.process.isRunning }
    scene.folder.touch("go")
    #expect(run.process.wait().status == 0)
    let watched = watch.wait()
    #expect(watched.status == 0, "\(watched.stderr)")
    let lines = watched.stdout.split(separator: "\n").map(String.init)
    let finishedA = try #require(
      lines.firstIndex { $0.contains(#""job":"a""#) && $0.contains(#""to":"finished""#) }, "\(watched.stdout)")
    let late = try #require(
      lines.firstIndex { $0.contains(#""event":"output","job":"a""#) && $0.contains("late from a") },
      "\(watched.stdout)")
    let end = try #require(lines.firstIndex { $0.contains(#""event":"run-finished""#) }, "\(watched.stdout)")
    #expect(finishedA < late && late < end, "\(watched.stdout)")
  }
}
