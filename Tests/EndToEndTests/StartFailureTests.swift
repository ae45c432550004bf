import Foundation
import Testing

/// Jobs that cannot start (SPEC §3.5): a missing folder, a process out of descriptors. A job
/// that truly cannot start fails with the reason, never with a made-up exit status; one that
/// only ran short of descriptors waits for them and runs.
@Suite struct StartFailureTests {
  /// oprun's arguments run through `sh`, under an open-file limit of `descriptors` (soft and hard).
  static func underFileLimit(_ descriptors: Int, _ arguments: [String]) -> [String] {
    ["-c", "ulimit -n \(descriptors) && exec \"$0\" \"$@\"", oprunBinary] + arguments
  }

  @Test func aJobWhoseFolderIsMissingFailsWithTheReasonAndNoExitStatus() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        lost: {command: touch ran, cwd: nowhere, completion: echo "status=$OPRUN_EXIT_CODE." > completion.txt}
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 1)
    let log = folder.events
    let finish = try #require(log.finish(of: "lost"))
    #expect(finish["outcome"] as? String == "failed")
    #expect(finish["exit_code"] is NSNull && finish["signal"] is NSNull, "\(finish)")
    #expect((finish["error"] as? String)?.contains("nowhere") == true, "\(finish)")
    #expect((finish["error"] as? String)?.contains("(ENOENT)") == true, "\(finish)")
    #expect(!log.executed("lost"), "a job that never started has no executing transition")
    #expect(run.stdout.contains("failed (not started)"), "\(run.stdout)")
    #expect(run.stdout.contains("lost | oprun: cannot change to directory"), "\(run.stdout)")
    #expect(!folder.exists("ran"))
    expectStreamContract(log)
  }

  /// §7-sized demand under a small `ulimit -n`: concurrency is kept within what descriptors
  /// allow, with one warning, and every job runs.
  @Test func manyReadyJobsUnderASmallFileLimitAllRunWithOneWarning() throws {
    let folder = try Scratch()
    let jobs = (0..<200).map { "  j\($0): {command: echo \($0)}" }.joined(separator: "\n")
    try folder.manifest("jobs:\n" + jobs)
    let run = try OprunProcess(Self.underFileLimit(64, runArguments(["-j", "100"])), in: folder, executable: "/bin/sh")
      .wait()
    #expect(run.status == 0, "\(run.stderr)")
    let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("oprun: warning: ") }
    #expect(warnings.count == 1, "\(run.stderr)")
    #expect(warnings.first?.contains("ulimit -n") == true)
    #expect(folder.events.finishedCounts.count == 200)
    #expect(
      folder.events.named("transition").allSatisfy { $0["outcome"] == nil || $0["outcome"] as? String == "succeeded" })
    for index in [0, 99, 199] { #expect(run.stdout.contains("j\(index) | \(index)\n")) }
  }

  /// A limit raised past what descriptors allow while the run runs: the starts that run
  /// short wait for running jobs to end, then run; none fails.
  @Test func startsShortOfDescriptorsWaitForRunningJobsAndThenRun() throws {
    let scene = try ControlScene()
    let jobs = (0..<30).map { "  j\($0): {command: 'while [ ! -e go ]; do sleep 0.01; done'}" }
    try scene.folder.manifest("max-concurrent: 2\njobs:\n" + jobs.joined(separator: "\n"))
    let logs = try Scratch()
    let process = try OprunProcess(
      Self.underFileLimit(48, [scene.folder.path("jobs.yaml"), "--events", scene.folder.path(eventsFile)]), in: logs,
      environment: scene.environment, executable: "/bin/sh")
    try waitUntil("two jobs executing") {
      scene.folder.events.named("transition").filter { $0["to"] as? String == "executing" }.count == 2
    }
    let limit = try scene.ctl(["--pid", String(process.pid), "limit", "jobs", "30"])
    #expect(limit.status == 0, "\(limit.stderr)")
    try waitUntil("the limit taken") { scene.folder.events.named("limit").first != nil }
    scene.folder.touch("go")
    let run = process.wait()
    #expect(run.status == 0, "\(run.stderr)")
    let log = scene.folder.events
    #expect(log.finishedCounts.count == 30)
    #expect(log.named("transition").allSatisfy { $0["outcome"] == nil || $0["outcome"] as? String == "succeeded" })
    expectStreamContract(log)
  }
}
