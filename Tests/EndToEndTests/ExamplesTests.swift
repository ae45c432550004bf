import Foundation
import Testing

/// The feature examples in `jobs/` show what their comments say they show.
@Suite struct ExamplesTests {
  /// Runs `jobs/NAME` in a scratch folder of its own (or in `folder`, again), with the event stream on.
  private func run(_ name: String, _ extra: [String] = [], in folder: Scratch? = nil) throws -> (
    Finished, EventLog, Scratch
  ) {
    let folder = try folder ?? FixtureTests.scratchWithFixture(name)
    let run = try runOprun(runArguments(extra, manifest: name), in: folder)
    let log = folder.events
    expectStreamContract(log)
    return (run, log, folder)
  }

  @Test func prioritiesStartHighestFirstThenInManifestOrderButNeverBeforeADependency() throws {
    let (run, log, _) = try run("priorities.yaml")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      log.order(of: "executing") == ["checkout", "hotfix", "test", "lint", "format", "docs", "archive", "deploy"])
  }

  @Test func criticalPathStartsTheHeadOfTheLongestChainWhereFIFOStartsTheFirstJobs() throws {
    let (fifo, fifoLog, _) = try run("critical-path.yaml")
    #expect(fifo.status == 0, "\(fifo.stderr)")
    #expect(fifoLog.order(of: "executing").prefix(2) == ["docs", "lint"])
    let (critical, criticalLog, _) = try run("critical-path.yaml", ["--schedule", "critical-path"])
    #expect(critical.status == 0, "\(critical.stderr)")
    // The first two start together, before anything finishes: what follows depends on which ends first.
    #expect(criticalLog.order(of: "executing").prefix(2) == ["compile", "docs"])
  }

  @Test func matrixRunsEachInstanceInOrderAndReportAfterThemAll() throws {
    let (run, log, _) = try run("matrix.yaml")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      log.order(of: "executing") == [
        "build[3.10]", "build[3.12]", "test[3.10,sqlite]", "test[3.12,sqlite]", "test[3.12,postgres]",
        "test[3.12,mysql]", "report",
      ])
    #expect(run.stdout.contains("test[3.12,mysql] | tox -e py3.12 against mysql"))
  }

  @Test func failingTestKeepsItsCauseInTheEventsAndTheJournalWhichLogShowsFromAnyFolder() throws {
    let (run, log, folder) = try run("failing-test.yaml")
    #expect(run.status == 1, "\(run.stderr)")
    #expect(log.named("output", job: "flaky-test").last?.string("text") == "assertion failed: expected 3, got 4\n")
    let id = try #require(log.named("run-started").first?.string("run"))
    let shown = try runOprun(["log", id], in: try Scratch(), environment: ["XDG_STATE_HOME": folder.stateHome])
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(shown.stdout.contains("    … 150 earlier lines\n    check 151 of 199 ok\n"), "\(shown.stdout)")
    #expect(shown.stdout.contains("    assertion failed: expected 3, got 4\n── summary: "))
  }

  @Test func qosSetsNicenessAndTheStartOrderOfJobsWithoutAPriority() throws {
    let (run, log, _) = try run("qos.yaml")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.order(of: "executing") == ["setup", "ui", "preview", "compile", "thumbnails", "index"])
    func niceness(_ job: String) throws -> Int {
      let prefix = "\(job) | \(job): nice "
      let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix(prefix) })
      return try #require(Int(line.dropFirst(prefix.count)))
    }
    let base = try niceness("compile")
    #expect(try niceness("thumbnails") == min(base + 5, 19))
    #expect(try niceness("index") == min(base + 10, 19))
    #expect(try niceness("preview") <= base)
    #expect(try niceness("ui") <= niceness("preview"))
  }

  @Test func queuesKeepTheirOwnLimitsAndDependenciesCrossThem() throws {
    let (run, log, _) = try run("queues.yaml")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.order(of: "executing", queue: "net") == ["download-a", "download-b", "download-c"])
    #expect(log.order(of: "executing", queue: "build") == ["compile", "link"])
    #expect(log.mostExecutingAtOnce["net"] ?? 0 <= 2)
    #expect(log.mostExecutingAtOnce["build"] == 1)
    let firstDownloadDone = min(
      try #require(log.index(of: "download-a", to: "finished")),
      try #require(log.index(of: "download-b", to: "finished")))
    #expect(try #require(log.index(of: "download-c", to: "executing")) > firstDownloadDone)
    let linkStarts = try #require(log.index(of: "link", to: "executing"))
    for job in ["compile", "download-a", "download-b", "download-c"] {
      #expect(try #require(log.index(of: job, to: "finished")) < linkStarts, "\(job)")
    }
  }

  @Test func aBarrierWaitsForTheJobsBeforeItAndHoldsBackTheJobsAfterIt() throws {
    let (run, log, _) = try run("barrier.yaml")
    #expect(run.status == 0, "\(run.stderr)")
    let migrateStarts = try #require(log.index(of: "migrate", to: "executing"))
    let migrateEnds = try #require(log.index(of: "migrate", to: "finished"))
    for job in ["schema-a", "schema-b"] {
      #expect(try #require(log.index(of: job, to: "finished")) < migrateStarts, "\(job)")
    }
    for job in ["seed-a", "seed-b"] {
      #expect(try #require(log.index(of: job, to: "executing")) > migrateEnds, "\(job)")
    }
  }

  @Test func runIfSkipsOrRunsEachJobAsItsCommentSays() throws {
    let (run, log, _) = try run("run-if.yaml")
    #expect(run.status == 1)
    let outcomes = ["build", "test", "deploy", "rollback", "debug-build", "report"].map { log.outcome(of: $0) }
    #expect(outcomes == ["succeeded", "failed", "skipped", "succeeded", "skipped", "succeeded"])
    #expect(log.cancelReason(of: "deploy") == "dependency-failed")
    #expect(!log.executed("deploy"))
    #expect(!log.executed("debug-build"))
  }

  @Test(arguments: [
    ([], ["succeeded", "cancelled", "succeeded"]),
    (["-k"], ["succeeded", "succeeded", "succeeded"]),
    (["--fail-fast"], ["cancelled", "cancelled", "cancelled"]),
  ])
  func eachFailurePolicyTreatsTheJobsAsTheCommentSays(flags: [String], slowPackageCleanup: [String]) throws {
    let (run, log, folder) = try run("failure-policies.yaml", flags)
    #expect(run.status == 1)
    #expect(log.outcome(of: "broken") == "failed")
    #expect(["slow", "package", "cleanup"].map { log.outcome(of: $0) } == slowPackageCleanup)
    #expect(log.executed("package") == (slowPackageCleanup[1] == "succeeded"))
    if flags == ["--fail-fast"] { #expect(log.finish(of: "slow")?.int("signal") == Int(SIGTERM)) }
    #expect(!folder.exists(".broken.pid"), "the example cleans up after itself")
  }

  @Test func aRetrySavesTheFlakyJobAndATimeoutStopsTheHangingOne() throws {
    let (run, log, _) = try run("timeouts-and-retries.yaml")
    #expect(run.status == 1)
    #expect(log.outcome(of: "flaky") == "succeeded")
    #expect(log.finish(of: "flaky")?.int("attempt") == 2)
    #expect(run.stdout.contains("flaky | attempt 1\n") && run.stdout.contains("flaky | attempt 2\n"))
    #expect(log.outcome(of: "hang") == "timed-out")
    #expect(log.cancelReason(of: "hang") == "timeout")
    #expect(log.outcome(of: "quick") == "succeeded")
  }

  /// Needs cgroups oprun may make (as `CgroupTests` do): without them nothing runs out of memory.
  @Test func theBudgetHoldsLinkBackAndARetryWithTwiceTheMemorySavesTheJobTheKernelKilled() throws {
    let (run, log, _) = try run("resources.yaml")
    #expect(run.status == 0, "\(run.stderr)")
    let linkStarts = try #require(log.index(of: "link", to: "executing"))
    for compile in ["compile-a", "compile-b"] {
      #expect(try #require(log.index(of: compile, to: "finished")) < linkStarts, "link needs both CPUs")
    }
    let retry = try #require(log.transitions(of: "load", to: "ready").last)
    #expect(retry.string("reason") == "out-of-memory", "\(retry)")
    #expect(retry.int("memory") == 400 << 20)
    #expect(log.outcome(of: "load") == "succeeded")
    #expect(log.finish(of: "load")?.int("attempt") == 2)
    #expect(run.stdout.contains("its memory doubled to 400 MB"))
    #expect(run.stdout.contains("load | held 300 MB\n"))
  }

  @Test func everyJobsCompletionRunsWithItsStatus() throws {
    let (run, log, _) = try run("completions.yaml")
    #expect(run.status == 1)
    #expect(log.named("completion").compactMap { $0.string("job") }.sorted() == ["build", "publish", "test"])
    for line in [
      "build | notify: build succeeded (exit 0)", "test | notify: test failed (exit 3)",
      "publish | notify: publish skipped (exit none)",
    ] {
      #expect(run.stdout.contains(line + "\n"), "\(line)")
    }
    #expect(!log.executed("publish"))
  }

  @Test func cacheRestoresWhatAnotherCopyBuiltWithoutRunningACommand() throws {
    let store = try Scratch()
    let environment = ["OPRUN_CACHE": store.path("cache")]
    var copies: [Scratch] = []
    for _ in 0..<2 {
      let copy = try FixtureTests.scratchWithFixture("cache")
      // As a fresh clone has it, whatever a run of the example in the source tree left.
      for left in ["cache/build", "cache/.oprun"] { try? FileManager.default.removeItem(atPath: copy.path(left)) }
      copies.append(copy)
    }
    let built = try runOprun(runArguments(manifest: "cache/jobs.yaml"), in: copies[0], environment: environment)
    #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
    #expect(copies[0].events.executed("build") && copies[0].events.executed("test"))

    let plan = try runOprun(["-n", "cache/jobs.yaml"], in: copies[1], environment: environment)
    #expect(plan.stdout.contains("2 restored from cache, 0 to run"), "\(plan.stdout)")
    let restored = try runOprun(runArguments(manifest: "cache/jobs.yaml"), in: copies[1], environment: environment)
    #expect(restored.status == 0, "\(restored.stderr)")
    let log = copies[1].events
    expectStreamContract(log)
    #expect(!log.executed("build") && !log.executed("test"), "no command runs")
    #expect(log.finish(of: "test")?["cached"] as? Bool == true)
    #expect(restored.stdout.contains("test | self-test: ok"), "\(restored.stdout)")
    for file in ["cache/build/app", "cache/build/test.log"] {
      #expect(FileManager.default.contents(atPath: copies[1].path(file)) == FileManager.default.contents(atPath: copies[0].path(file)))
    }
    #expect(FileManager.default.isExecutableFile(atPath: copies[1].path("cache/build/app")))
  }

  @Test func sharedSettingsComeFromAnXAnchorThroughMergeKeys() throws {
    let (run, log, _) = try run("shared-settings.yaml")
    #expect(run.status == 0, "\(run.stderr)")
    for line in ["db | db: log level info", "api | api: log level debug", "web | web: log level info"] {
      #expect(run.stdout.contains(line + "\n"), "\(line)")
    }
    #expect(log.order(of: "executing") == ["db", "api", "web"])
  }

  @Test func aCommentOnlyEditCompilesOneObjectAgainButLinksNothing() throws {
    let folder = try FixtureTests.scratchWithFixture("incremental.yaml")
    let sources = packageRoot.appendingPathComponent("jobs/incremental").path
    try FileManager.default.copyItem(atPath: sources, toPath: folder.path("incremental"))
    try? FileManager.default.removeItem(atPath: folder.path("incremental/build"))
    let (first, firstLog, _) = try run("incremental.yaml", in: folder)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(
      Set(firstLog.order(of: "executing")) == ["compile[main]", "compile[greet]", "compile[sum]", "link", "test"])
    #expect(first.stdout.contains("test | hello from an incremental build: 6\n"))
    #expect(folder.read("incremental/build/test.log") == "sum of 1, 2, 3 is 6: ok\n")
    let (again, againLog, _) = try run("incremental.yaml", in: folder)
    #expect(againLog.order(of: "executing").isEmpty)
    #expect(again.stdout.hasSuffix("  up to date\n── nothing to do: 5 jobs up to date\n"), "\(again.stdout)")
    #expect(again.stdout.split(separator: "\n").count == 6, "\(again.stdout)")

    let greet = "incremental/src/greet.c"
    let source = try #require(folder.read(greet))
    try folder.write(greet, source.replacingOccurrences(of: "edit this comment", with: "this comment was edited"))
    let (_, commentLog, _) = try run("incremental.yaml", in: folder)
    #expect(commentLog.order(of: "executing") == ["compile[greet]"])
    #expect(commentLog.finish(of: "link")?["up_to_date"] as? Bool == true)

    try folder.write(greet, source.replacingOccurrences(of: "an incremental build", with: "an edited build"))
    let (edited, editedLog, _) = try run("incremental.yaml", in: folder)
    #expect(editedLog.order(of: "executing") == ["compile[greet]", "link", "test"])
    #expect(edited.stdout.contains("test | hello from an edited build: 6\n"))
  }

  @Test func interactiveJobsWithoutATerminalReadTheEndOfInputAndSucceed() throws {
    let (run, log, _) = try run("interactive.yaml")
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.contains { $0.hasPrefix("your name? hello") })
    #expect(lines.contains { $0.hasPrefix("sure? answer is") })
    #expect(!run.stdout.contains("ask | "))
    #expect(run.stdout.contains("background | quietly working\n"))
    #expect(try #require(log.index(of: "confirm", to: "executing")) > #require(log.index(of: "ask", to: "finished")))
  }
}
