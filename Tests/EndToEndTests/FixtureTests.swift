import Foundation
import Testing

/// The manifests in `jobs/` do what their comments and the README say.
@Suite struct FixtureTests {
  /// Copies `jobs/NAME` into a fresh scratch folder, so that what it writes lands there.
  static func scratchWithFixture(_ name: String) throws -> Scratch {
    let folder = try Scratch()
    let source = packageRoot.appendingPathComponent("jobs/\(name)").path
    try FileManager.default.copyItem(atPath: source, toPath: folder.path(name))
    return folder
  }

  @Test func theDemoPipelineSucceedsJobByJob() throws {
    let folder = try Self.scratchWithFixture("demo.yaml")
    let run = try runOprun(runArguments(manifest: "demo.yaml"), in: folder)
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    let log = folder.events
    expectStreamContract(log)
    #expect(log.announcedJobCount == 11)
    for job in log.finishedCounts.keys.sorted() {
      #expect(log.outcome(of: job) == "succeeded", "\(job)")
    }
    #expect(folder.read("build/app") == "lib-a\nlib-b\nint main(void) { return 0; }\n")
    #expect(folder.read("build/README.txt") == "hello from oprun\n")
    #expect(folder.read("build/logs/completions.log") == "link finished\n")
    // collect-logs gathers every log, the completion's too: the tests' two lines come last.
    #expect(folder.read("build/logs/all.txt")?.hasSuffix("ok\nok\n") == true)
    #expect(folder.exists("build/demo.tar"))
    #expect(log.pids(of: "compile-lib").count == 2)
    #expect(log.mostExecutingAtOnce["io"] == 1)
    #expect((log.mostExecutingAtOnce["demo"] ?? 0) <= 2)
  }

  @Test func interruptingTheCancelDemoDoesWhatTheReadmeSays() throws {
    let folder = try Self.scratchWithFixture("cancel.yaml")
    let oprun = try OprunProcess(runArguments(manifest: "cancel.yaml"), in: folder)
    // Each download's `sleep` has started: its shell is past start-up (and c's trap is set).
    for job in ["download-a", "download-b", "download-c"] { try folder.waitUntilJob(job, runs: "sleep") }
    oprun.send(SIGINT)
    let run = oprun.wait()

    // oprun ends by SIGINT itself: a shell shows 130.
    #expect(run.signal == SIGINT)
    let log = folder.events
    #expect(log.finishedExitCode == 130)
    // The running downloads get SIGINT in their groups and finish cancelled; c cleans up.
    for job in ["download-a", "download-b", "download-c"] {
      #expect(log.outcome(of: job) == "cancelled", "\(job)")
      #expect(log.cancelReason(of: job) == "interrupt")
    }
    #expect(log.finish(of: "download-a")?.int("signal") == Int(SIGINT))
    #expect(log.finish(of: "download-c")?.int("exit_code") == 3)
    #expect(run.stdout.contains("download-c | c cleans up"), "\(run.stdout)")
    #expect(!run.stdout.contains("a done"))
    // Queued behind them: ready → finished cancelled, never run.
    for job in ["unpack", "build", "test", "report"] {
      #expect(log.outcome(of: job) == "cancelled", "\(job)")
      #expect(!log.executed(job))
      #expect(log.finish(of: job)?.string("from") == "ready")
    }
    for output in ["unpacking", "building", "testing", "report written"] {
      #expect(!run.stdout.contains(output))
    }
    // Every completion still runs, cancelled jobs included.
    for line in [
      "notify: download-a is cancelled", "notify: download-b is cancelled", "notify: download-c is cancelled",
      "notify: unpack is cancelled", "notify: test is cancelled (exit none)",
    ] {
      #expect(run.stdout.contains(line), "\(line)")
    }
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }
}
