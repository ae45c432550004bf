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

  /// A watcher stopped by SIGSTOP while a job prints 6 MB (15 MB of events, past the 8 MiB a
  /// watcher may lag by): the run drops it and ends
  /// without waiting for it; continued, it reads what it was sent, then `watch-dropped`.
  @Test func aStoppedWatcherCostsTheRunNothingAndReadsWatchDroppedWhenContinued() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      name: main
      jobs:
        flood: {command: "\(waitFor("go")); yes 0123456789012345678901234567890123456789 | head -n 150000"}
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
    #expect(lines.count < 150_000)
  }

  /// A run nobody watches keeps a bounded part of its output for a late watcher, on disk:
  /// a job printing 90 MB leaves oprun's temporary files under 70 MiB, and a watcher that
  /// attaches afterwards reads every line either as output or counted in `output-skipped`.
  @Test func outputNobodyWatchesTakesABoundedPartOfTheDisk() throws {
    let scene = try ControlScene()
    let lines = 22_000
    let manifest = try scene.folder.manifest(
      """
      jobs:
        flood: {command: "l=$(printf '%04095d' 0); yes $l | head -n \(lines); touch flooded; \(waitFor("go"))"}
      """)
    let temporary = scene.folder.path("tmp")
    try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
    let logs = try Scratch()
    let events = scene.folder.path("events.ndjson")
    var environment = scene.environment
    environment["TMPDIR"] = temporary
    let run = try OprunProcess(
      [manifest, "--events", events], in: logs, environment: environment, standardOutput: FileHandle.nullDevice)
    // 90 MB take minutes through a sanitized build on a busy machine: the limits only end a hang.
    try waitUntil("the flood printed", limit: 900) { scene.folder.exists("flooded") }
    let watch = try scene.startCtl(["watch", "--json"])
    try waitUntil("the watcher read what was left out", limit: 900) {
      watch.process.standardOutput.contains(#""event":"output-skipped""#) || !watch.process.process.isRunning
    }
    let held = temporaryFileBytes(of: run.pid, under: temporary)
    scene.folder.touch("go")
    let finished = run.wait()
    let watched = watch.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    #expect(watched.status == 0, "\(watched.stderr)")
    #expect(held > 0 && held < 70 << 20, "oprun's temporary files held \(held) bytes")
    var shown = 0
    var skipped = 0
    for line in watched.stdout.split(separator: "\n") {
      let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      switch object["event"] as? String {
      case "output": shown += 1
      case "output-skipped":
        #expect(object["job"] as? String == "flood")
        skipped += object["lines"] as? Int ?? 0
      default: break
      }
    }
    #expect(skipped > 0)
    #expect(shown + skipped == lines)
  }

  /// Bytes in the files `pid` holds open under `folder`, unnamed ones included.
  private func temporaryFileBytes(of pid: Int32, under folder: String) -> Int {
    let descriptors = "/proc/\(pid)/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
    return names.reduce(0) { total, name in
      let link = descriptors + "/" + name
      guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link), target.hasPrefix(folder)
      else { return total }
      var status = stat()
      return stat(link, &status) == 0 ? total + Int(status.st_size) : total
    }
  }
}
