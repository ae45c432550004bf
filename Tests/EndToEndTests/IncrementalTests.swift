import Foundation
import Testing

/// Doing only what changed (SPEC §10): jobs that declare `inputs` and `outputs` run only when
/// what they read, what they wrote or what their dependencies produced changed. Each test counts
/// which jobs executed (an `executing` transition) over several runs in one scratch folder.
@Suite struct IncrementalTests {
  /// Two generators that drop comment lines, a link of both, a test of the link, and a job
  /// unrelated to the rest. `test` declares outputs only, so that the only thing that can make
  /// it run again is what `link` produced.
  static let build = """
    jobs:
      gen-a:
        command: sed '/^#/d' a.txt > a.out
        inputs: [a.txt]
        outputs: [a.out]
      gen-b:
        command: sed '/^#/d' b.txt > b.out
        inputs: [b.txt]
        outputs: [b.out]
      link:
        command: cat a.out b.out > app
        dependencies: [gen-a, gen-b]
        inputs: [a.out, b.out]
        outputs: [app]
      test:
        command: cat app > test.log
        dependencies: [link]
        outputs: [test.log]
      other:
        command: cat c.txt > c.out
        inputs: [c.txt]
        outputs: [c.out]
    """

  static let buildJobs: Set<String> = ["gen-a", "gen-b", "link", "test", "other"]

  /// A folder holding `build` and its sources, run once: every job has a record.
  static func builtFolder() throws -> Scratch {
    let folder = try Scratch()
    try folder.manifest(build)
    try folder.write("a.txt", "alpha\n")
    try folder.write("b.txt", "beta\n")
    try folder.write("c.txt", "gamma\n")
    let (first, log) = try folder.runJobs()
    #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
    #expect(log.executedJobs == buildJobs)
    return folder
  }

  // MARK: Nothing changed

  @Test func aSecondRunRunsNothingAndSaysEachJobIsUpToDate() throws {
    let folder = try Self.builtFolder()
    let (second, log) = try folder.runJobs()
    #expect(second.status == 0, "\(second.stderr)")
    expectStreamContract(log)
    #expect(log.executedJobs.isEmpty)
    for job in Self.buildJobs.sorted() {
      let finish = try #require(log.finish(of: job), "\(job)")
      #expect(finish.string("outcome") == "succeeded", "\(job)")
      #expect(finish["up_to_date"] as? Bool == true, "\(job)")
      #expect(finish.string("from") == "ready", "\(job) goes from ready straight to finished")
      #expect(log.why(job) == "up-to-date", "\(job)")
      #expect(timelineLine(second.stdout, "finished", job)?.contains("up to date") == true, "\(job)")
    }
    #expect(folder.read("app") == "alpha\nbeta\n")
  }

  /// As ninja's "no work to do": one line per job, then one line that says nothing ran.
  @Test func aSecondRunPrintsOneLinePerJobThenNothingToDo() throws {
    let folder = try Self.builtFolder()
    let (second, _) = try folder.runJobs()
    #expect(second.status == 0, "\(second.stderr)")
    let lines = second.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.suffix(2) == ["── nothing to do: 5 jobs up to date", ""], "\(second.stdout)")
    let jobLines = lines.dropLast(2).map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
    #expect(jobLines.sorted() == Self.buildJobs.map { "finished \($0) up to date" }.sorted(), "\(second.stdout)")
  }

  // MARK: When it is ready

  /// SPEC §2: a job with no dependencies is ready as the run starts, whatever its files; the
  /// decision, and the start, wait for its hash. The input is a sparse file of 256 GiB: its
  /// hash takes minutes, so once `ready` is seen, and another job has run, oprun still has it
  /// open for reading.
  /// Then a SIGTERM ends the run without waiting for the hash: the job is cancelled, never up
  /// to date.
  @Test func aJobIsReadyAsTheRunStartsWhileItsInputIsStillBeingHashed() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        digest:
          command: echo ran > out
          inputs: [big.bin]
          outputs: [out]
        other:
          command: echo other
      """)
    try folder.shell("truncate -s 256G big.bin")
    let oprun = try OprunProcess(runArguments(), in: folder)
    try waitUntil("digest ready") { folder.events.order(of: "ready").contains("digest") }
    // Other jobs go on meanwhile.
    try folder.waitUntilFinished("other")
    #expect(
      try openFiles(of: oprun.pid).contains { $0.hasSuffix(folder.url.lastPathComponent + "/big.bin") },
      "big.bin is still being hashed")
    let ready = try #require(folder.events.named("transition", job: "digest").first)
    #expect(ready.string("from") == "pending")
    #expect(ready["why"] == nil, "nothing is decided yet")
    #expect(folder.events.named("transition", job: "digest").count == 1)

    oprun.send(SIGTERM)
    let ended = oprun.wait()
    #expect(ended.status == 143 || ended.signal == SIGTERM, "\(ended.stderr)")
    let log = folder.events
    expectStreamContract(log)
    #expect(log.outcome(of: "digest") == "cancelled")
    #expect(log.finish(of: "digest")?["up_to_date"] == nil)
    #expect(!log.executed("digest"))
    #expect(log.outcome(of: "other") == "succeeded")
  }

  // MARK: Inputs

  @Test func anEditedInputRunsItsJobAndWhatDependsOnItAndNothingElse() throws {
    let folder = try Self.builtFolder()
    try folder.write("a.txt", "alpha, edited\n")
    let (run, log) = try folder.runJobs()
    #expect(run.status == 0, "\(run.stderr)")
    expectStreamContract(log)
    #expect(log.executedJobs == ["gen-a", "link", "test"])
    #expect(log.why("gen-a") == "input-changed")
    #expect(log.reason("gen-a")?.contains("a.txt") == true, "\(log.reason("gen-a") ?? "no reason")")
    #expect(log.why("test") == "dependency-changed")
    #expect(log.why("gen-b") == "up-to-date")
    #expect(log.why("other") == "up-to-date")
    #expect(folder.read("test.log") == "alpha, edited\nbeta\n")
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
  }

  /// An edit that keeps the size, with the modification time put back as it was, made right
  /// after the run that hashed the file: within the timestamp granularity of that hash, so the
  /// hash cache must not trust what it saw. A `touch` changes times only and runs nothing.
  @Test func aSameSizeEditWithItsTimeRestoredIsSeenAndATouchAloneRunsNothing() throws {
    let folder = try Self.builtFolder()
    try folder.shell("touch -r a.txt stamp && printf 'ALPHA\\n' > a.txt && touch -r stamp a.txt")
    let (edited, log) = try folder.runJobs()
    #expect(edited.status == 0, "\(edited.stderr)")
    #expect(log.executedJobs == ["gen-a", "link", "test"])
    #expect(log.why("gen-a") == "input-changed")
    #expect(folder.read("app") == "ALPHA\nbeta\n")

    // Once more, straight after a run that hashed the new content.
    try folder.shell("touch -r a.txt stamp && printf 'alpha\\n' > a.txt && touch -r stamp a.txt")
    #expect(try folder.runJobs().1.executedJobs == ["gen-a", "link", "test"])
    #expect(folder.read("app") == "alpha\nbeta\n")

    try folder.shell("touch a.txt b.txt c.txt a.out app")
    let (touched, touchedLog) = try folder.runJobs()
    #expect(touched.status == 0, "\(touched.stderr)")
    #expect(touchedLog.executedJobs.isEmpty)
  }

  @Test func aFileAddedToOrRemovedFromAGlobRunsTheJob() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        bundle:
          command: cat src/*.txt > bundle
          inputs: ["src/*.txt"]
          outputs: [bundle]
      """)
    try folder.shell("mkdir src && echo one > src/one.txt && echo two > src/two.txt")
    #expect(try folder.runJobs().1.executedJobs == ["bundle"])

    try folder.write("src/three.txt", "three\n")
    let (_, added) = try folder.runJobs()
    #expect(added.executedJobs == ["bundle"])
    #expect(added.why("bundle") == "input-added")
    #expect(added.reason("bundle")?.contains("src/three.txt") == true, "\(added.reason("bundle") ?? "no reason")")
    #expect(folder.read("bundle") == "one\nthree\ntwo\n")

    try FileManager.default.removeItem(atPath: folder.path("src/two.txt"))
    let (_, removed) = try folder.runJobs()
    #expect(removed.executedJobs == ["bundle"])
    #expect(removed.why("bundle") == "input-removed")
    #expect(removed.reason("bundle")?.contains("src/two.txt") == true, "\(removed.reason("bundle") ?? "no reason")")

    // A file the pattern does not match is no input.
    try folder.write("src/notes.md", "not an input\n")
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
  }

  // MARK: Outputs

  @Test func anOutputDeletedOrEditedRunsItsJobAndTheSameBytesAgainRunNothingAfterIt() throws {
    let folder = try Self.builtFolder()
    try FileManager.default.removeItem(atPath: folder.path("app"))
    let (deleted, log) = try folder.runJobs()
    #expect(deleted.status == 0, "\(deleted.stderr)")
    #expect(log.executedJobs == ["link"], "link writes app again, byte for byte: test has nothing new")
    #expect(log.why("link") == "output-missing")
    #expect(log.reason("link")?.contains("app") == true, "\(log.reason("link") ?? "no reason")")
    #expect(timelineLine(deleted.stdout, "ready", "link") == nil, "its executing line says why it runs")
    #expect(timelineLine(deleted.stdout, "executing", "link")?.hasSuffix(" · runs: output app missing") == true)

    try folder.write("app", "tampered\n")
    let (_, edited) = try folder.runJobs()
    #expect(edited.executedJobs == ["link"])
    #expect(edited.why("link") == "output-changed")
    #expect(folder.read("app") == "alpha\nbeta\n")
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
  }

  @Test func aNewFileInAnOutputFolderOrAnEmptyOutputFolderRunsTheJob() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        dist:
          command: mkdir -p dist && cp in.txt dist/copy
          inputs: [in.txt]
          outputs: [dist/]
      """)
    try folder.write("in.txt", "in\n")
    #expect(try folder.runJobs().1.executedJobs == ["dist"])
    try folder.write("dist/stray", "stray\n")
    #expect(try folder.runJobs().1.executedJobs == ["dist"])
    try FileManager.default.removeItem(atPath: folder.path("dist/stray"))
    try FileManager.default.removeItem(atPath: folder.path("dist/copy"))
    let (_, empty) = try folder.runJobs()
    #expect(empty.executedJobs == ["dist"])
    #expect(empty.why("dist") == "output-missing")
    #expect(folder.read("dist/copy") == "in\n")
  }

  /// A job that writes more outputs than a journal line lists: its record names their
  /// listing, kept in `.oprun/outputs/` under its digest. The next run finds the outputs up to
  /// date without reading it; a deleted output is named from it; and a listing no record
  /// names any more is removed.
  @Test func manyOutputsAreKeptInAListingTheRecordNamesByItsDigest() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        unpack:
          command: >-
            rm -rf out && mkdir out && cd out &&
            seq -f "$(cat ../stem.txt)-%06g" 1 $(cat ../count.txt) | xargs touch
          inputs: [count.txt, stem.txt]
          outputs: [out/]
      """)
    try folder.write("count.txt", "3000\n")
    try folder.write("stem.txt", String(repeating: "a-long-name-of-an-unpacked-module-file", count: 3) + "\n")
    let (first, firstLog) = try folder.runJobs()
    #expect(first.status == 0, "\(first.stderr)")
    #expect(firstLog.executedJobs == ["unpack"])
    let firstLine = try #require(try journalLine(of: "unpack", in: folder, run: firstLog))
    #expect(!firstLine.keys.contains("outputs"), "3,000 outputs are not listed in the line")
    let digest = try #require(firstLine["outputs_listing"] as? String)
    #expect(try keptOutputListings(in: folder) == [digest])

    let (second, secondLog) = try folder.runJobs()
    #expect(second.status == 0)
    #expect(second.stderr == "", "no warning")
    #expect(secondLog.executedJobs.isEmpty)
    #expect(secondLog.why("unpack") == "up-to-date")
    #expect(try journalLine(of: "unpack", in: folder, run: secondLog)?["outputs_listing"] as? String == digest)

    let stem = try #require(folder.read("stem.txt")).dropLast()
    try FileManager.default.removeItem(atPath: folder.path("out/\(stem)-001234"))
    let (_, deleted) = try folder.runJobs()
    #expect(deleted.executedJobs == ["unpack"])
    #expect(deleted.why("unpack") == "output-missing")
    let reason = deleted.reason("unpack") ?? "no reason"
    #expect(reason == "output out/\(stem)-001234 missing", "\(reason)")
    #expect(try keptOutputListings(in: folder) == [digest], "the same files again: the same listing")

    try folder.write("count.txt", "3001\n")
    let (_, more) = try folder.runJobs()
    #expect(more.executedJobs == ["unpack"])
    let newDigest = try #require(try journalLine(of: "unpack", in: folder, run: more)?["outputs_listing"] as? String)
    #expect(newDigest != digest)
    #expect(try keptOutputListings(in: folder) == [newDigest], "the listing no record names is removed")
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
  }

  // MARK: Early cutoff and dependencies

  @Test func aDependencyThatRunsAgainAndWritesTheSameBytesDoesNotRunItsDependents() throws {
    let folder = try Self.builtFolder()
    try folder.write("a.txt", "# a comment the generator drops\nalpha\n")
    let (run, log) = try folder.runJobs()
    #expect(run.status == 0, "\(run.stderr)")
    expectStreamContract(log)
    #expect(log.executedJobs == ["gen-a"])
    #expect(log.why("gen-a") == "input-changed")
    #expect(log.why("link") == "up-to-date")
    #expect(log.why("test") == "up-to-date")
    #expect(log.finish(of: "link")?["up_to_date"] as? Bool == true)
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
  }

  @Test func aDependencyWithoutOutputsThatRunsMakesItsDependentsRunAndOnceItStopsTheyStop() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        prepare:
          command: cat p.txt
          inputs: [p.txt]
        use:
          command: cat u.txt > u.out
          dependencies: [prepare]
          inputs: [u.txt]
          outputs: [u.out]
        stamp:
          command: echo stamp
        after:
          command: cat u.txt > after.out
          dependencies: [stamp]
          inputs: [u.txt]
          outputs: [after.out]
      """)
    try folder.write("p.txt", "p\n")
    try folder.write("u.txt", "u\n")
    #expect(try folder.runJobs().1.executedJobs == ["prepare", "use", "stamp", "after"])

    // `stamp` declares nothing: it runs every time, and so does what depends on it.
    let (_, quiet) = try folder.runJobs()
    #expect(quiet.executedJobs == ["stamp", "after"])
    #expect(quiet.why("after") == "dependency-ran")

    try folder.write("p.txt", "p, edited\n")
    let (_, edited) = try folder.runJobs()
    #expect(edited.executedJobs == ["prepare", "use", "stamp", "after"])
    #expect(edited.why("use") == "dependency-ran")

    #expect(try folder.runJobs().1.executedJobs == ["stamp", "after"], "use is up to date once prepare is")
  }

  // MARK: Failure

  @Test func aJobThatFailedRunsAgainEvenWithNothingChangedUntilItSucceeds() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        build:
          command: cp in.txt out && test -f fixed
          inputs: [in.txt]
          outputs: [out]
      """)
    try folder.write("in.txt", "in\n")
    let (failed, _) = try folder.runJobs()
    #expect(failed.status == 1)

    let (again, log) = try folder.runJobs()
    #expect(again.status == 1)
    #expect(log.executedJobs == ["build"])
    #expect(log.why("build") == "failed")

    // `fixed` is no input: the job runs because its last run failed, and then succeeds.
    folder.touch("fixed")
    let (fixed, fixedLog) = try folder.runJobs()
    #expect(fixed.status == 0, "\(fixed.stderr)")
    #expect(fixedLog.executedJobs == ["build"])
    #expect(fixedLog.why("build") == "failed")
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
  }

  @Test func aDeclaredOutputNotWrittenFailsTheJobWithExitCodeZeroAndRetriesAndOnFailureApply() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        forgetful:
          command: echo forgetful >> log; touch half
          outputs: [half, never, gone]
          retries: 2
        after:
          command: echo after >> log
          dependencies: [forgetful]
      """)
    let (run, log) = try folder.runJobs()
    #expect(run.status == 1)
    expectStreamContract(log)
    let finish = try #require(log.finish(of: "forgetful"))
    #expect(finish.string("outcome") == "failed")
    #expect(finish.int("exit_code") == 0)
    #expect(Set(finish["missing_outputs"] as? [String] ?? []) == ["never", "gone"])
    #expect(finish.int("attempt") == 3)
    #expect(log.transitions(of: "forgetful", to: "executing").count == 3)
    #expect(folder.runCounts["forgetful"] == 3)
    let line = try #require(timelineLine(run.stdout, "finished", "forgetful"))
    #expect(line.hasPrefix("failed") && line.contains("never") && line.contains("gone"), "\(line)")
    // Each retry says what the attempt left out, as the last attempt's line does.
    let retry = try #require(run.stdout.split(separator: "\n").first { $0.contains("retrying: attempt 1") })
    #expect(retry.contains("forgetful") && retry.contains("attempt 1 ended with exit 0, missing outputs "), "\(retry)")
    #expect(log.transitions(of: "forgetful", to: "ready").contains { ($0["missing_outputs"] as? [String])?.count == 2 })
    // The default `on-failure: stop` cancels what has not started.
    #expect(log.outcome(of: "after") == "cancelled")
    #expect(!log.executed("after"))
    #expect(log.finishedExitCode == 1)
  }

  // MARK: -n, clones, odd files

  @Test func dryRunsChangeNothingTheNextRunDoesAndWriteNoJournal() throws {
    let folder = try Self.builtFolder()
    let control = try Self.builtFolder()
    for place in [folder, control] { try place.write("a.txt", "alpha, edited\n") }

    let before = folder.oprunState
    let plans = try (1...2).map { _ in try runOprun(["-n", "jobs.yaml"], in: folder) }
    for plan in plans { #expect(plan.status == 0, "\(plan.stderr)") }
    #expect(plans[0].stdout == plans[1].stdout)
    let reasons = planLines(plans[0].stdout)
    #expect(reasons["gen-a"] == "runs: input a.txt changed")
    #expect(reasons["gen-b"] == "up to date")
    #expect(reasons["other"] == "up to date")
    #expect(reasons["link"] == "runs if gen-a's outputs change")
    #expect(reasons["test"]?.hasPrefix("runs if link's outputs change") == true, "\(reasons["test"] ?? "none")")
    #expect(folder.oprunState == before, "-n writes nothing in .oprun/ but the hash cache")

    let (run, log) = try folder.runJobs()
    let (controlRun, controlLog) = try control.runJobs()
    #expect(run.status == 0 && controlRun.status == 0)
    #expect(log.executedJobs == ["gen-a", "link", "test"])
    #expect(log.executedJobs == controlLog.executedJobs)
    for job in Self.buildJobs.sorted() { #expect(log.why(job) == controlLog.why(job), "\(job)") }
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
  }

  @Test func aCopyInAnotherFolderWithItsOprunFolderRunsNothing() throws {
    let folder = try Self.builtFolder()
    let clone = try Scratch()
    try runShell("cp -a \"$0\"/. \"$1\"", arguments: [folder.url.path, clone.url.path], in: clone)
    let (run, log) = try clone.runJobs()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.executedJobs.isEmpty)
    for job in Self.buildJobs.sorted() { #expect(log.why(job) == "up-to-date", "\(job)") }

    try clone.write("b.txt", "beta, edited in the copy\n")
    #expect(try clone.runJobs().1.executedJobs == ["gen-b", "link", "test"])
    #expect(try folder.runJobs().1.executedJobs.isEmpty, "the original is not touched by its copy")
  }

  @Test func aLinkLoopAFifoAndADeviceAmongInputsNeitherHangNorCrash() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        odd:
          command: cat data/real.txt > out
          inputs: [data/, data/pipe, /dev/zero]
          outputs: [out]
      """)
    try folder.shell(
      "mkdir data && echo real > data/real.txt && ln -s . data/loop && ln -s /dev/zero data/zero && mkfifo data/pipe")
    func run() throws -> (Finished, EventLog) {
      let oprun = try OprunProcess(runArguments(), in: folder)
      try waitUntil("oprun to finish", limit: 60) { !oprun.process.isRunning }
      return (oprun.wait(), folder.events)
    }
    let (first, firstLog) = try run()
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.signal == nil)
    expectStreamContract(firstLog)
    #expect(firstLog.executedJobs == ["odd"])
    #expect(folder.read("out") == "real\n")

    let (second, secondLog) = try run()
    #expect(second.status == 0, "\(second.stderr)")
    #expect(secondLog.executedJobs.isEmpty)

    try folder.write("data/real.txt", "edited\n")
    #expect(try run().1.executedJobs == ["odd"])
  }

  /// SPEC §10: "a journal is removed only once no job of the manifest as it is now has its
  /// newest record in it" — targeted runs of one job, more than the journals kept, leave the
  /// others' records standing.
  @Test func runsTargetingOneJobKeepTheNewestRecordsOfTheJobsTheyLeaveOut() throws {
    let folder = try Self.builtFolder()
    for _ in 0..<21 {
      let (run, log) = try folder.runJobs(["other"])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(log.executedJobs.isEmpty)
    }
    let (all, log) = try folder.runJobs()
    #expect(all.status == 0, "\(all.stderr)")
    #expect(log.executedJobs.isEmpty, "\(log.executedJobs)")
  }

  /// An input the dependency may write again: under -n the dependent waits on what it
  /// writes, and the run finds it up to date once the dependency wrote back the same bytes.
  @Test func dryRunSaysADependentOfAnEditedOutputRunsIfItsDependencysOutputsChange() throws {
    let folder = try Self.builtFolder()
    try folder.write("a.out", "tampered\n")
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(plan.status == 0, "\(plan.stderr)")
    let reasons = planLines(plan.stdout)
    #expect(reasons["gen-a"] == "runs: output a.out changed")
    #expect(reasons["link"] == "runs if gen-a's outputs change", "\(plan.stdout)")
    let (run, log) = try folder.runJobs()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.executedJobs == ["gen-a"])
    #expect(log.why("link") == "up-to-date")
  }

  /// A file that cannot be read (another user's, mode 000) may change unseen: its job runs
  /// each time, and says why; a pseudo-file that never ends is recorded so too, without a hang.
  @Test func anInputThatCannotBeReadWholeRunsItsJobEveryTimeAndSaysWhich() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        endless:
          command: touch out
          inputs: [/proc/self/pagemap]
          outputs: [out]
      """)
    for _ in 0..<2 {
      let oprun = try OprunProcess(runArguments(), in: folder)
      try waitUntil("oprun to finish", limit: 60) { !oprun.process.isRunning }
      let run = oprun.wait()
      #expect(run.status == 0, "\(run.stderr)")
      #expect(folder.events.executedJobs == ["endless"])
      #expect(folder.events.why("endless") != "up-to-date")
    }
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(plan.stdout)["endless"] == "runs: input /proc/self/pagemap cannot be read", "\(plan.stdout)")
    #expect(folder.events.why("endless") == "input-unreadable")
  }

  /// An edit undone while the job runs (`git stash` after the start, `stash pop` after the
  /// end): the outputs are built from what the start did not hash, so the next run must not
  /// call the job up to date, and says why.
  @Test func anInputEditUndoneWhileTheJobRunsIsNoRecordOfUpToDate() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        build:
          command: touch started; while [ ! -e go ]; do sleep 0.01; done; cp src.txt out.txt
          inputs: [src.txt]
          outputs: [out.txt]
      """)
    try folder.write("src.txt", "A\n")
    try folder.write("go", "")
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 0)
    try folder.write("src.txt", "B\n")
    try FileManager.default.removeItem(atPath: folder.path("go"))
    try FileManager.default.removeItem(atPath: folder.path("started"))
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilExists("started")
    try folder.write("src.txt", "A\n")
    try folder.write("go", "")
    #expect(oprun.wait().status == 0)
    try folder.write("src.txt", "B\n")
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(plan.stdout)["build"] == "runs: input src.txt changed while it last ran", "\(plan.stdout)")
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 0)
    #expect(try String(contentsOfFile: folder.path("out.txt"), encoding: .utf8) == "B\n")
    let again = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(again.stdout)["build"] == "up to date", "\(again.stdout)")
  }

  /// The manifest's folder named through a link, from inside it: what lies under the folder
  /// is recorded relative to it, so `.oprun/` and the job's own output are no inputs.
  @Test func theManifestsFolderNamedThroughALinkIsNoInputOfItsOwnState() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        self:
          command: ls src > listing
          inputs: [here/src, here, "!oprun.stdout", "!oprun.stderr"]
          outputs: [listing]
      """)
    try folder.shell("mkdir src && echo a > src/a && ln -s . here")
    // Without --events, and without the files the test keeps oprun's output in: the whole
    // folder is an input, and a file oprun writes while the job runs is an input changed
    // while it ran, which no record can call up to date.
    let first = try runOprun(["jobs.yaml"], in: folder)
    #expect(first.status == 0, "\(first.stderr)")
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(plan.stdout)["self"] == "up to date", "\(plan.stdout)")
    try folder.write("src/b", "b\n")
    let edited = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(edited.stdout)["self"] == "runs: input src/b added", "\(edited.stdout)")
  }

  /// A name that is not UTF-8 cannot be shown or opened as it is: such a file is seen when it
  /// is added, and, since its content cannot be read by the name shown, its job runs each time.
  @Test func aFileWhoseNameIsNotUTF8IsSeenAndItsJobIsNeverUpToDate() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        names:
          command: cat data/* > out
          inputs: [data]
          outputs: [out]
      """)
    try folder.shell("mkdir data && echo a > data/a")
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 0)
    try folder.shell("printf x > \"$(printf 'data/bad\\377')\"")
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(plan.stdout)["names"] == "runs: input data/bad\u{FFFD} added", "\(plan.stdout)")
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 0)
    let again = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(again.stdout)["names"] == "runs: input data/bad\u{FFFD} cannot be read", "\(again.stdout)")
  }

  /// A folder whose path is longer than PATH_MAX cannot be listed by it: it is recorded as
  /// unreadable, not left out, so that what lies in it cannot change unseen.
  @Test func aFolderDeeperThanPathMaxIsRecordedAsUnreadableNotLeftOut() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        deep:
          command: touch out
          inputs: [data]
          outputs: [out]
      """)
    let name = String(repeating: "d", count: 250)
    // Python's chdir takes one name at a time, where a shell's cd would need the whole path.
    try folder.shell(
      "python3 -c 'import os\nos.mkdir(\"data\"); os.chdir(\"data\")\nfor i in range(20): os.mkdir(\"\(name)\"); "
        + "os.chdir(\"\(name)\"); open(\"f\", \"w\").write(str(i))'")
    // The same tree through a pattern that matches only files below, and its deepest file named.
    let deepest = "data/" + String(repeating: name + "/", count: 20) + "f"
    try folder.manifest(
      """
      jobs:
        deep: {command: touch out, inputs: [data], outputs: [out]}
        below: {command: touch out2, inputs: ["data/**/f"], outputs: [out2]}
        named: {command: touch out3, inputs: ["\(deepest)"], outputs: [out3]}
      """)
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 0)
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    for job in ["deep", "below", "named"] {
      let reason = try #require(planLines(plan.stdout)[job], "\(plan.stdout)")
      #expect(reason.hasPrefix("runs: input data/\(name)/") && reason.hasSuffix(" cannot be read"), "\(job): \(reason.prefix(80))")
    }
  }

  /// An output that cannot be read may have changed unseen: the jobs that depend on it run.
  @Test func aDependencyWhoseOutputCannotBeReadMakesItsDependentsRun() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        make:
          command: mkdir -p out && date +%N > "$(printf 'out/bad\\377')"
          outputs: [out]
        use:
          command: cat out/* > used
          dependencies: [make]
          outputs: [used]
      """)
    #expect(try folder.runJobs().0.status == 0)
    let (second, log) = try folder.runJobs()
    #expect(second.status == 0, "\(second.stderr)")
    #expect(log.executedJobs == ["make", "use"])
    #expect(log.why("use") == "dependency-ran")
  }

  /// A link to a job's own output folder, named as an input, is no input of its own.
  @Test func aLinkToTheJobsOwnOutputsIsNoInputOfIt() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        build:
          command: mkdir -p build && cat src > build/x
          inputs: [src, bl]
          outputs: [build/x]
      """)
    try folder.shell("echo a > src && mkdir build && ln -s build bl")
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 0)
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(plan.stdout)["build"] == "up to date", "\(plan.stdout)")
  }

  /// Under -n, an input that a dependency's dependency may write again waits on it too.
  @Test func dryRunWaitsOnWhatAnIndirectDependencyMayWriteAgain() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        build: {command: cp src app.o, inputs: [src], outputs: [app.o]}
        mid: {command: cp app.o mid.out, dependencies: [build], inputs: [app.o], outputs: [mid.out]}
        top: {command: cat app.o mid.out > top.out, dependencies: [mid], inputs: [app.o, mid.out], outputs: [top.out]}
      """)
    try folder.write("src", "source\n")
    #expect(try runOprun(["jobs.yaml"], in: folder).status == 0)
    try folder.write("app.o", "by hand\n")
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    let reasons = planLines(plan.stdout)
    #expect(reasons["build"] == "runs: output app.o changed")
    #expect(reasons["mid"] == "runs if build's outputs change")
    #expect(reasons["top"] == "runs if mid's outputs change", "\(plan.stdout)")
    let (run, log) = try folder.runJobs()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.executedJobs == ["build"])
  }

  /// A file name with a line break is shown escaped on the human line, never raw.
  @Test func aReasonNamingAFileWithALineBreakStaysOnItsLine() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        names:
          command: ls data > out
          inputs: [data]
          outputs: [out]
      """)
    try folder.shell("mkdir data && echo a > data/a")
    #expect(try folder.runJobs().0.status == 0)
    try folder.shell("printf x > 'data/two\nlines'")
    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(planLines(plan.stdout)["names"] == "runs: input data/two\\nlines added", "\(plan.stdout)")
  }

  // MARK: Flags

  @Test func forceRunsEveryJobAndRecordsItAndWinsOverResume() throws {
    let folder = try Self.builtFolder()
    let (forced, log) = try folder.runJobs(["-B"])
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(log.executedJobs == Self.buildJobs)
    #expect(log.why("gen-a") == "forced")
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
    #expect(try folder.runJobs(["--force", "--resume"]).1.executedJobs == Self.buildJobs)
    #expect(try folder.runJobs().1.executedJobs.isEmpty)
  }

  @Test func anUpToDateJobDoesNotRunItsCompletion() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        copy:
          command: cp in.txt out
          inputs: [in.txt]
          outputs: [out]
          completion: echo completion >> log
      """)
    try folder.write("in.txt", "in\n")
    #expect(try folder.runJobs().1.executedJobs == ["copy"])
    let (second, log) = try folder.runJobs()
    #expect(second.status == 0, "\(second.stderr)")
    #expect(log.executedJobs.isEmpty)
    #expect(log.named("completion").isEmpty)
    #expect(folder.runCounts == ["completion": 1])
  }

  @Test func resumeNeverSimplyResumesAJobWithInputsOrOutputs() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        plain:
          command: echo plain
        io:
          command: cp in.txt out
          inputs: [in.txt]
          outputs: [out]
      """)
    try folder.write("in.txt", "in\n")
    #expect(try folder.runJobs().1.executedJobs == ["plain", "io"])

    try folder.write("in.txt", "in, edited\n")
    let (resumed, log) = try folder.runJobs(["--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(log.executedJobs == ["io"])
    #expect(log.finish(of: "plain")?["resumed"] as? Bool == true)
    #expect(log.finish(of: "io")?["resumed"] as? Bool != true)
    #expect(log.why("io") == "input-changed")
    #expect(folder.read("out") == "in, edited\n")

    let (_, again) = try folder.runJobs(["-r"])
    #expect(again.executedJobs.isEmpty)
    #expect(again.finish(of: "io")?["up_to_date"] as? Bool == true)
    #expect(again.finish(of: "io")?["resumed"] as? Bool != true)
  }

  // MARK: Matrix

  @Test func matrixValuesAreFilledInInInputsAndOutputs() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        build:
          matrix: {part: [one, two]}
          command: cp ${{ matrix.part }}.txt ${{ matrix.part }}.out
          inputs: ["${{ matrix.part }}.txt"]
          outputs: ["${{ matrix.part }}.out"]
      """)
    try folder.write("one.txt", "one\n")
    try folder.write("two.txt", "two\n")
    let (first, log) = try folder.runJobs()
    #expect(first.status == 0, "\(first.stderr)")
    #expect(log.executedJobs == ["build[one]", "build[two]"])
    #expect(folder.read("one.out") == "one\n" && folder.read("two.out") == "two\n")

    try folder.write("two.txt", "two, edited\n")
    let (_, edited) = try folder.runJobs()
    #expect(edited.executedJobs == ["build[two]"])
    #expect(edited.reason("build[two]")?.contains("two.txt") == true)
    try FileManager.default.removeItem(atPath: folder.path("one.out"))
    let (_, missing) = try folder.runJobs()
    #expect(missing.executedJobs == ["build[one]"])
    #expect(missing.why("build[one]") == "output-missing")
  }
}

// MARK: - Helpers

extension Scratch {
  /// Runs `jobs.yaml` here to its end with the event stream on, and reads the stream.
  fileprivate func runJobs(_ extra: [String] = []) throws -> (Finished, EventLog) {
    let run = try runOprun(runArguments(extra), in: self)
    return (run, events)
  }

  /// Runs `script` with `/bin/sh` in this folder; it must succeed.
  fileprivate func shell(_ script: String) throws {
    try runShell(script, in: self)
  }

  /// Every file under `.oprun/` but the hash cache, with its content: what `-n` must leave alone.
  fileprivate var oprunState: [String: Data] {
    let root = path(".oprun")
    var state: [String: Data] = [:]
    let walker = FileManager.default.enumerator(atPath: root)
    while let name = walker?.nextObject() as? String {
      guard !name.hasPrefix("hashes") else { continue }
      state[name] = FileManager.default.contents(atPath: root + "/" + name) ?? Data()
    }
    return state
  }
}

/// Runs `script` with `/bin/sh -c`, `arguments` as `$0`, `$1`…, in `folder`; it must succeed.
private func runShell(_ script: String, arguments: [String] = [], in folder: Scratch) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/sh")
  process.arguments = ["-c", script] + arguments
  process.currentDirectoryURL = folder.url
  try process.run()
  process.waitUntilExit()
  #expect(process.terminationStatus == 0, "sh -c \(script)")
}

/// The journal line of `job` in the journal of the run `log` recorded, as JSON.
private func journalLine(of job: String, in folder: Scratch, run log: EventLog) throws -> [String: Any]? {
  let run = try #require(log.named("run-started").first?["run"] as? String)
  let text = try #require(folder.read(".oprun/runs/\(run).ndjson"))
  for line in text.split(separator: "\n") {
    let value = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    if value?["type"] as? String == "job", value?["job"] as? String == job { return value }
  }
  return nil
}

/// What the process `pid` has open: where each of its descriptors leads.
private func openFiles(of pid: Int32) throws -> [String] {
  let folder = "/proc/\(pid)/fd"
  return try FileManager.default.contentsOfDirectory(atPath: folder).compactMap {
    try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
  }
}

/// The names of the listings of outputs kept in `folder`'s `.oprun/outputs/`.
private func keptOutputListings(in folder: Scratch) throws -> Set<String> {
  Set(try FileManager.default.contentsOfDirectory(atPath: folder.path(".oprun/outputs")))
}

extension EventLog {
  /// The jobs that started executing in this run.
  var executedJobs: Set<String> {
    Set(transitions.filter { $0.string("to") == "executing" }.compactMap { $0.string("job") })
  }

  /// The `why` code of `job`'s decision: on the transition that leaves ready once its files
  /// have said it (to executing, or to finished when it is up to date).
  fileprivate func why(_ job: String) -> String? { decision(of: job)?.string("why") }

  /// The `reason` text of `job`'s decision.
  fileprivate func reason(_ job: String) -> String? { decision(of: job)?.string("reason") }

  private func decision(of job: String) -> [String: Any]? {
    named("transition", job: job).first { $0["why"] != nil }
  }
}

/// What follows the job's name on the first human line `TIME STATE JOB …` for `state` and `job`.
func timelineLine(_ output: String, _ state: String, _ job: String) -> String? {
  for line in output.split(separator: "\n") {
    let words = line.split(separator: " ")
    if words.count >= 3, words[1] == state, words[2] == job { return words.dropFirst(3).joined(separator: " ") }
  }
  return nil
}

/// The plan of `-n`: each job's `up to date` or `runs…`, by name.
private func planLines(_ output: String) -> [String: String] {
  var reasons: [String: String] = [:]
  for line in output.split(separator: "\n") {
    guard let match = line.wholeMatch(of: /\s+\d+\. (\S+)\s+(.*)/) else { continue }
    reasons[String(match.1)] = String(match.2)
  }
  return reasons
}
