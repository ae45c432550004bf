import Foundation
import Testing

/// `oprun ctl watch` shows a run as the run shows itself, and each `oprun ctl` call is one
/// request (SPEC §8), against the built binary.
@Suite struct WatchLinesTests {
  /// A job up to date, one whose input changed, one missing its output, one cancelled by
  /// `ctl cancel`, one failing: the watcher, attached mid-run, prints the run's own lines.
  @Test func aWatcherPrintsTheRunsOwnLinesLineForLine() throws {
    let scene = try ControlScene()
    let manifest = try scene.folder.manifest(
      """
      name: main
      max-concurrent: 1
      on-failure: continue
      jobs:
        fresh: {command: "cp fresh.txt fresh.out", inputs: [fresh.txt], outputs: [fresh.out]}
        changed: {command: "cp in.txt changed.out", inputs: [in.txt], outputs: [changed.out]}
        gate: {command: "\(waitFor("go")); echo gate passed", dependencies: [fresh, changed]}
        never: {command: "echo writes nothing", outputs: [never.txt], dependencies: [gate]}
        victim: {command: "echo victim ran", dependencies: [gate]}
        broken: {command: "echo about to fail; exit 3", dependencies: [gate]}
      """)
    try scene.folder.write("fresh.txt", "same\n")
    try scene.folder.write("in.txt", "before\n")
    let logs = try Scratch()
    let first = try runOprun([manifest, "fresh", "changed"], in: logs, environment: scene.environment)
    #expect(first.status == 0, "\(first.stderr)")
    try scene.folder.write("in.txt", "after\n")

    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["cancel", "victim"])
    let watch = try scene.startCtl(["watch"])
    try waitUntil("the watcher shows the run so far") {
      watch.process.standardOutput.contains("cancel victim") || !watch.process.process.isRunning
    }
    scene.folder.touch("go")
    let finished = run.process.wait()
    let watched = watch.wait()

    #expect(finished.status == 1, "\(finished.stderr)")
    #expect(watched.status == 0, "\(watched.stderr)")
    let own = finished.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let seen = watched.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    for (index, (a, b)) in zip(own, seen).enumerated() where a != b {
      Issue.record("line \(index + 1): the run printed\n\(a)\nthe watcher\n\(b)")
      break
    }
    #expect(own.count == seen.count, "run:\n\(finished.stdout)\nwatcher:\n\(watched.stdout)")
    // What the run printed is what this test is about.
    for expected in [
      "up to date", "runs: input in.txt changed", "missing output never.txt", "cancel victim  ok",
      "cancelled (control)",
      "failed (exit 3)", "broken | about to fail",
    ] {
      #expect(finished.stdout.contains(expected), "\(expected)\n\(finished.stdout)")
    }
  }

  /// Choosing the run by its manifest asks the run nothing: two calls, two requests, in the
  /// event stream and on the run's own verbose timeline, which shows every request.
  @Test func twoCtlCallsAreTwoControlEvents() throws {
    let scene = try ControlScene()
    let manifest = try scene.folder.manifest(
      """
      name: main
      jobs:
        gate: {command: "\(waitFor("go"))"}
        after: {command: "true", dependencies: [gate]}
      """)
    let run = try scene.startRun(["-v"])
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["--manifest", manifest, "suspend"])
    try scene.steer(["--manifest", manifest, "resume"])
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let requests = run.log.named("control").compactMap { $0.string("command") }
    #expect(requests == ["suspend", "resume"])
    let shown = finished.stdout.split(separator: "\n").filter { $0.contains("s  control ") }
    #expect(shown.count == 2, "\(finished.stdout)")
  }

  /// A watcher stopped by SIGSTOP while a job prints 20 MB: the run drops it and ends
  /// without waiting for it; continued, it reads what it was sent, then `watch-dropped`.
  @Test func aStoppedWatcherCostsTheRunNothingAndReadsWatchDroppedWhenContinued() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      jobs:
        flood: {command: "\(waitFor("go")); yes 0123456789012345678901234567890123456789 | head -n 500000"}
      """)
    let run = try scene.startRun()
    try waitUntil("flood executing") { run.log.executed("flood") }
    let watch = try scene.startCtl(["watch", "--json"])
    try waitUntil("the watcher attached") {
      watch.process.standardOutput.contains("flood") || !watch.process.process.isRunning
    }
    watch.process.send(SIGSTOP)
    defer { watch.process.send(SIGCONT) }
    scene.folder.touch("go")
    let finished = run.process.wait()
    #expect(finished.status == 0, "\(finished.stderr)")
    #expect(run.log.named("run-finished").count == 1)

    watch.process.send(SIGCONT)
    let watched = watch.wait()
    #expect(watched.status == 1)
    #expect(watched.stderr == "oprun: error: the run dropped this watcher: it fell behind the run\n")
    let lines = watched.stdout.split(separator: "\n")
    #expect(lines.last == #"{"event":"watch-dropped"}"#)
    // Whole lines up to it, each an event of the run.
    #expect(lines.dropLast().allSatisfy { $0.hasPrefix(#"{"t":"#) && $0.hasSuffix("}") })
    #expect(lines.count < 500_000)
  }
}
