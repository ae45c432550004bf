import Foundation
import Testing

/// How big the resource tests are: `OPRUN_RESOURCES=full` (`make resources`) runs them at the
/// sizes a user might reach; `make test` runs smaller ones of the same shape.
enum ResourceScale {
  static let full = ProcessInfo.processInfo.environment["OPRUN_RESOURCES"] == "full"
  static let grandchildren = full ? 10_000 : 1_000
  static let manyJobs = full ? 100_000 : 10_000
  static let outputMegabytes = full ? 1_024 : 64
}

/// What a user notices when a run meets the machine's limits: descriptors, processes, memory.
@Suite struct ResourceTests {
  /// 200 jobs ready at once at `-j 100` under `ulimit -n 64`: oprun cannot hold 100 jobs'
  /// pipes open at once, and must not turn that into failed jobs (SPEC §2: output is never
  /// lost; a job fails only by its own doing, §3.5).
  @Test func readyJobsBeyondTheDescriptorLimitAllSucceed() throws {
    let folder = try Scratch()
    let token = UUID().uuidString
    let jobs = (0..<200).map { "  j\($0): {command: \"sleep 0.2; echo done \($0)\"}" }
    try folder.manifest("env: {TORTURE_RUN: \(token)}\njobs:\n" + jobs.joined(separator: "\n") + "\n")
    let run = try OprunProcess(
      ["-c", "ulimit -n 64; exec \"$0\" \"$@\"", oprunBinary] + runArguments(["-j", "100"]), in: folder,
      executable: "/bin/sh"
    ).wait()
    let log = folder.events
    #expect(run.status == 0, "stderr: \(run.stderr.prefix(600))")
    let outcomes = Dictionary(grouping: (0..<200).map { log.outcome(of: "j\($0)") ?? "none" }, by: { $0 })
      .mapValues(\.count)
    #expect(outcomes == ["succeeded": 200])
    let failed = (0..<200).map { "j\($0)" }.filter { log.outcome(of: $0) != "succeeded" }.prefix(3)
    for job in failed { Issue.record("\(job) did not succeed: \(log.finish(of: job) ?? [:])") }
    let printed = run.stdout.split(separator: "\n").filter { $0.contains(" | done ") }.count
    #expect(printed == 200, "job lines printed")
    expectStreamContract(log)
    #expect(RunLeftovers.awaitNone(token: token, groups: Set(log.jobGroups), limit: 30) == [])
  }

  /// A job that starts thousands of background processes, then Ctrl-C: nothing of the run is
  /// left (SPEC §3.4: every job's group is signalled, then killed after the grace).
  @Test func interruptAfterThousandsOfGrandchildrenLeavesNoProcess() throws {
    let folder = try Scratch()
    let token = UUID().uuidString
    let batches = ResourceScale.grandchildren / 100
    try folder.manifest(
      """
      env: {TORTURE_RUN: \(token)}
      jobs:
        spawner:
          command: |
            b=0
            while [ $b -lt \(batches) ]; do
              i=0
              while [ $i -lt 100 ]; do sleep 1000 & i=$((i + 1)); done
              b=$((b + 1))
            done
            : > forked
            wait
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "0.5"]), in: folder)
    try folder.waitUntilExists("forked")
    let group = try #require(folder.events.pids(of: "spawner").first)
    let members = liveMembers(ofGroup: group).count
    #expect(members > ResourceScale.grandchildren, "the job's group holds \(members) processes")
    oprun.send(SIGINT)
    #expect(oprun.awaitExit(limit: 300), "oprun still running 300 s after Ctrl-C")
    let left = RunLeftovers.awaitNone(token: token, groups: [group], limit: 120)
    #expect(left.isEmpty, "\(left.count) processes left, e.g. \(left.prefix(3))")
    let run = oprun.wait()
    #expect(run.signal == SIGINT)
    #expect(folder.events.outcome(of: "spawner") == "cancelled")
  }

  /// oprun's peak memory grows with the manifest, not faster: ten times the trivial jobs
  /// take less than ten times the peak.
  @Test func peakMemoryGrowsLinearlyInJobs() throws {
    let small = try peakKilobytes(jobs: ResourceScale.manyJobs / 10, outputMegabytes: 0)
    let large = try peakKilobytes(jobs: ResourceScale.manyJobs, outputMegabytes: 0)
    print("peak RSS: \(ResourceScale.manyJobs / 10) jobs \(small) KiB, \(ResourceScale.manyJobs) jobs \(large) KiB")
    #expect(large < 10 * small, "\(ResourceScale.manyJobs) jobs peak \(large) KiB, a tenth of them \(small) KiB")
  }

  /// Output streams through oprun: a job printing hundreds of megabytes does not grow its
  /// memory by anything like that much.
  @Test func peakMemoryDoesNotGrowWithOutput() throws {
    let quiet = try peakKilobytes(jobs: 1, outputMegabytes: 0)
    let loud = try peakKilobytes(jobs: 1, outputMegabytes: ResourceScale.outputMegabytes)
    print("peak RSS: a quiet job \(quiet) KiB, a job printing \(ResourceScale.outputMegabytes) MiB \(loud) KiB")
    #expect(
      loud < quiet + 64 * 1024, "printing \(ResourceScale.outputMegabytes) MiB: peak \(loud) KiB, quiet \(quiet) KiB")
  }

  /// oprun's peak resident size (`/usr/bin/time -f %M`) on `jobs` trivial jobs, each printing
  /// `outputMegabytes` in lines of 100 characters, with its standard output going to /dev/null.
  private func peakKilobytes(jobs: Int, outputMegabytes: Int) throws -> Int {
    let folder = try Scratch()
    let command =
      outputMegabytes == 0
      ? ":"
      : "yes 123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789 | head -c \(outputMegabytes)M"
    var manifest = "max-concurrent: 2\njobs:\n"
    manifest.reserveCapacity(jobs * 40)
    for index in 0..<jobs { manifest += "  j\(index): {command: \"\(command)\"}\n" }
    try folder.manifest(manifest)
    let sink = try #require(FileHandle(forWritingAtPath: "/dev/null"))
    let run = try OprunProcess(
      ["-f", "%M", "-o", folder.path("peak"), oprunBinary, "jobs.yaml", "-q"], in: folder,
      executable: "/usr/bin/time", standardOutput: sink
    ).wait()
    #expect(run.status == 0, "stderr: \(run.stderr.prefix(300))")
    let text = folder.read("peak") ?? ""
    return try #require(Int(text.split(separator: "\n").last ?? ""), "time said \(text)")
  }
}
