import Foundation
import Testing

/// `--watch` (SPEC §13): runs again when a selected job's inputs change, only what they require.
@Suite struct WatchTests {
  /// `setup` declares nothing; `build` copies `src/` into `out.txt`; each appends its name to `log`.
  static let site = """
    jobs:
      setup:
        command: echo setup >> log
      build:
        command: cat src/*.txt > out.txt; echo build >> log
        dependencies: [setup]
        inputs: [src/]
        outputs: [out.txt]
    """

  /// `site` with a server that never exits, started after each build.
  static let served =
    site + """

        serve:
          command: echo serve >> log; exec sleep 1000
          dependencies: [build]
      """

  private func startWatching(
    _ folder: Scratch, manifest: String = site, target: String = "build", _ extra: [String] = []
  ) throws -> OprunProcess {
    try folder.write("jobs.yaml", manifest)
    try folder.write("src/a.txt", "a\n")
    return try OprunProcess(["--watch", "--events", "events.ndjson"] + extra + ["jobs.yaml", target], in: folder)
  }

  /// Waits until oprun has said `count` times that it watches (after each run).
  private func waitForWatching(_ oprun: OprunProcess, times count: Int) throws {
    try waitUntil("oprun watching for the \(count). time") {
      watchingLines(oprun).count >= count
    }
  }

  private func watchingLines(_ oprun: OprunProcess) -> [Substring] {
    let err = (try? String(contentsOfFile: oprun.stderrPath, encoding: .utf8)) ?? ""
    return err.split(separator: "\n").filter { $0.hasPrefix("oprun: watching ") }
  }

  private func changedLines(_ oprun: OprunProcess) -> [String] {
    let err = (try? String(contentsOfFile: oprun.stderrPath, encoding: .utf8)) ?? ""
    return err.split(separator: "\n").filter { $0.hasPrefix("oprun: changed: ") }.map(String.init)
  }

  private func ranJobs(_ folder: Scratch) -> [String] {
    (folder.read("log") ?? "").split(separator: "\n").map(String.init)
  }

  @Test func anEditRunsTheJobAgainButNotTheSetupBeforeItAndASameContentSaveStartsNothing() throws {
    let folder = try Scratch()
    let oprun = try startWatching(folder)
    try waitForWatching(oprun, times: 1)
    #expect(ranJobs(folder) == ["setup", "build"])
    try folder.write("src/a.txt", "a\n")  // the same content: no cycle
    try folder.write("src/b.txt", "b\n")
    try waitForWatching(oprun, times: 2)
    #expect(ranJobs(folder) == ["setup", "build", "build"], "setup declares nothing and its dependency did not run")
    #expect(changedLines(oprun) == ["oprun: changed: src/b.txt"], "the same-content save is no change")
    #expect(folder.read("out.txt") == "a\nb\n")
    let log = EventLog(path: folder.path("events.ndjson"))
    #expect(log.named("run-started").count == 2, "each cycle is a run")
    #expect(log.named("watch-changed").map { $0["paths"] as? [String] } == [["src/b.txt"]])
    #expect(log.named("watch-changed").first?["count"] as? Int == 1)
    #expect(log.named("watch-waiting").first?["files"] as? Int == 2, "src/a.txt and the manifest")
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  @Test func anEditorsSaveAndAFileInAFolderMadeAfterTheStartAreEachSeenOnce() throws {
    let folder = try Scratch()
    let oprun = try startWatching(folder)
    try waitForWatching(oprun, times: 1)
    try folder.write("src/.a.txt.swp", "saved\n")
    try FileManager.default.moveItem(atPath: folder.path("src/.a.txt.swp"), toPath: folder.path("src/a.txt.new"))
    _ = rename(folder.path("src/a.txt.new"), folder.path("src/a.txt"))
    try waitForWatching(oprun, times: 2)
    #expect(changedLines(oprun) == ["oprun: changed: src/a.txt"])
    try FileManager.default.createDirectory(atPath: folder.path("src/later"), withIntermediateDirectories: true)
    try waitUntil("the new folder is watched") { !changedLines(oprun).isEmpty }
    try folder.write("src/later/c.txt", "c\n")
    try waitForWatching(oprun, times: 3)
    #expect(changedLines(oprun).last == "oprun: changed: src/later/c.txt")
    #expect(ranJobs(folder) == ["setup", "build", "build", "build"])
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  @Test func aBrokenManifestIsReportedWatchingGoesOnAndItsFixWorks() throws {
    let folder = try Scratch()
    let oprun = try startWatching(folder)
    try waitForWatching(oprun, times: 1)
    try folder.write("jobs.yaml", "jobs:\n  build: [\n")
    try waitUntil("the manifest's error is said") {
      ((try? String(contentsOfFile: oprun.stderrPath, encoding: .utf8)) ?? "").contains("error")
    }
    #expect(ranJobs(folder) == ["setup", "build"])
    try waitForWatching(oprun, times: 2)  // watching on, the last good manifest's files
    try folder.write("jobs.yaml", Self.site.replacingOccurrences(of: "echo build", with: "echo rebuilt"))
    try waitForWatching(oprun, times: 3)
    #expect(ranJobs(folder) == ["setup", "build", "rebuilt"], "the fixed manifest's command ran")
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  @Test func whileTheManifestIsBrokenAnEditRunsTheLastGoodOne() throws {
    let folder = try Scratch()
    let oprun = try startWatching(folder)
    try waitForWatching(oprun, times: 1)
    try folder.write("jobs.yaml", "jobs:\n  build: [\n")
    try waitUntil("the manifest's error is said") {
      ((try? String(contentsOfFile: oprun.stderrPath, encoding: .utf8)) ?? "").contains("error")
    }
    try waitForWatching(oprun, times: 2)  // after the error
    try folder.write("src/a.txt", "edited\n")
    try waitForWatching(oprun, times: 3)
    #expect(ranJobs(folder) == ["setup", "build", "build"], "the last good manifest's build ran")
    #expect(folder.read("out.txt") == "edited\n")
    let err = (try? String(contentsOfFile: oprun.stderrPath, encoding: .utf8)) ?? ""
    #expect(err.contains("oprun: running the last good manifest until its errors are fixed"))
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  @Test func anEditToAnIncludedManifestRunsWhatItChanged() throws {
    try expectAnEditInTheIncludedFolderRunsGreetAgain(
      files: ["ci/common.yaml": "jobs:\n  greet:\n    command: echo hello >> ../log\n"],
      edit: ("ci/common.yaml", "jobs:\n  greet:\n    command: echo bonjour >> ../log\n"))
  }

  @Test func anEditToADotenvFileOfAnIncludedManifestRunsItsJobsWithTheNewValue() throws {
    try expectAnEditInTheIncludedFolderRunsGreetAgain(
      files: [
        "ci/common.yaml": "dotenv: [greeting.env]\njobs:\n  greet:\n    command: echo $GREETING >> ../log\n",
        "ci/greeting.env": "GREETING=hello\n",
      ],
      edit: ("ci/greeting.env", "GREETING=bonjour\n"))
  }

  /// Watches a manifest whose `build` depends on `common:greet` of `ci/common.yaml` (written,
  /// with the other `files`, so that greet logs `hello`), makes `edit` (so that it logs
  /// `bonjour`), and expects one change named and one cycle running greet, then build, again.
  private func expectAnEditInTheIncludedFolderRunsGreetAgain(
    files: [String: String], edit: (path: String, text: String)
  ) throws {
    let folder = try Scratch()
    for (path, text) in files { try folder.write(path, text) }
    let manifest = """
      include: [ci/common.yaml]
      jobs:
        build:
          command: cat src/*.txt > out.txt; echo build >> log
          dependencies: ["common:greet"]
          inputs: [src/]
          outputs: [out.txt]
      """
    let oprun = try startWatching(folder, manifest: manifest)
    try waitForWatching(oprun, times: 1)
    #expect(ranJobs(folder) == ["hello", "build"])
    try folder.write(edit.path, edit.text)
    try waitForWatching(oprun, times: 2)
    #expect(changedLines(oprun) == ["oprun: changed: \(edit.path)"])
    #expect(ranJobs(folder) == ["hello", "build", "bonjour", "build"], "the included job ran as the edit says")
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  /// In a user namespace of its own, where the kernel's limit of watches is set to 3 (the
  /// limit is the namespace's: other tests keep theirs), oprun cannot watch every folder.
  @Test func pastTheKernelsWatchLimitOneWarningAndPollingFindTheEdit() throws {
    let folder = try Scratch()
    try folder.write("jobs.yaml", Self.site)
    for index in 0..<6 {
      try FileManager.default.createDirectory(atPath: folder.path("src/d\(index)"), withIntermediateDirectories: true)
    }
    try folder.write("src/a.txt", "a\n")
    try folder.write("src/d5/deep.txt", "deep\n")
    let oprun = try OprunProcess(
      [
        "--user", "--map-root-user", "sh", "-c", "echo 3 > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\"",
        oprunBinary, "--watch", "--events", "events.ndjson", "jobs.yaml", "build",
      ], in: folder, executable: "/usr/bin/unshare")
    try waitForWatching(oprun, times: 1)
    try folder.write("src/d5/deep.txt", "deeper\n")
    try waitForWatching(oprun, times: 2)
    // The second cycle's look cannot come from the kernel's word, which misses this folder.
    try folder.write("src/d5/deep.txt", "deepest\n")
    try waitForWatching(oprun, times: 3)
    #expect(folder.read("out.txt") == "a\n", "out.txt holds src/*.txt")
    #expect(
      changedLines(oprun) == ["oprun: changed: src/d5/deep.txt", "oprun: changed: src/d5/deep.txt"],
      "polling found each edit")
    #expect(ranJobs(folder) == ["setup", "build", "build", "build"], "each edit built")
    let err = (try? String(contentsOfFile: oprun.stderrPath, encoding: .utf8)) ?? ""
    #expect(err.components(separatedBy: "fs.inotify.max_user_watches").count == 2, "one warning naming the limit")
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  @Test func anEditDuringTheCycleRestartsTheServerThatDependsOnTheBuild() throws {
    let folder = try Scratch()
    let oprun = try startWatching(folder, manifest: Self.served, target: "serve")
    let events = folder.path("events.ndjson")
    try waitUntil("serve runs") { EventLog(path: events).pids(of: "serve").count == 1 }
    let firstServer = EventLog(path: events).pids(of: "serve")[0]
    try folder.write("src/a.txt", "edited\n")
    try waitUntil("serve runs again") {
      EventLog(path: events).transitions(of: "serve", to: "executing").count == 2 && ranJobs(folder).count == 5
    }
    let log = EventLog(path: events)
    #expect(log.cancelReason(of: "serve") == "changed")
    let changed = try #require(log.events.firstIndex { $0["event"] as? String == "watch-changed" })
    #expect(log.events[changed]["paths"] as? [String] == ["src/a.txt"], "the cycle's own stream says what changed")
    #expect(
      log.events[..<changed].contains { $0["event"] as? String == "run-started" }
        && !log.events[..<changed].contains { $0["event"] as? String == "run-finished" },
      "inside the cycle it ended")
    #expect(
      oprun.standardOutput.split(separator: "\n").contains { $0.contains("changed") && $0.hasSuffix("src/a.txt") },
      "the timeline says it too")
    #expect(log.named("run-finished").first?["exit_code"] as? Int == 0, "a cycle a change ended is no failure")
    #expect(kill(firstServer, 0) == -1 && errno == ESRCH, "the old server is gone")
    #expect(log.named("run-started").count == 2, "the cycle the change ended, then the next")
    #expect(ranJobs(folder) == ["setup", "build", "serve", "build", "serve"])
    #expect(folder.read("out.txt") == "edited\n")
    let secondServer = try #require(
      (log.transitions(of: "serve", to: "executing").last?["pids"] as? [NSNumber])?.first?.int32Value)
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
    #expect(kill(secondServer, 0) == -1 && errno == ESRCH, "nothing is left running")
  }

  @Test func aThousandEditsAtOnceStartOneOrTwoCyclesAndTheLastSeesEveryEdit() throws {
    let folder = try Scratch()
    // A delay no burst of writes pauses for, on a machine as loaded as it may be.
    let oprun = try startWatching(folder, ["--watch-delay", "1000"])
    try waitForWatching(oprun, times: 1)
    for index in 0..<1000 {
      _ = FileManager.default.createFile(atPath: folder.path("src/f\(index).txt"), contents: Data("\(index)\n".utf8))
    }
    let events = folder.path("events.ndjson")
    try waitUntil("a cycle has built every edit and watching goes on") {
      (folder.read("out.txt")?.split(separator: "\n").count ?? 0) == 1001
        && EventLog(path: events).events.last?["event"] as? String == "watch-waiting"
    }
    let cycles = EventLog(path: events).named("run-started").count - 1
    #expect((1...2).contains(cycles), "\(cycles) cycles")
    if cycles == 1 {
      #expect(EventLog(path: events).named("watch-changed").first?["count"] as? Int == 1000)
      #expect(
        EventLog(path: events).named("watch-changed").first?["paths"] as? [String] == (0..<100).map { "src/f\($0).txt" }
      )
    }
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  /// A cycle takes the `stat` of a file no event named since the last cycle from what that
  /// cycle found. A declared output written by hand starts no cycle, but the kernel named it:
  /// the next cycle, started by another job's input, looks at it again, and the job that
  /// reads it runs. (Taken from the last cycle's look, its `stat` would be one the hash cache
  /// trusts, and `show` would be up to date.)
  @Test func anOutputEditedByHandIsSeenByTheNextCycleAnotherEditStarts() throws {
    let folder = try Scratch()
    try folder.write(
      "jobs.yaml",
      """
      jobs:
        show: {command: cat gen/out.txt >> log, inputs: ["gen/*.txt"]}
        make: {command: "true", outputs: [gen/out.txt]}
        other: {command: echo other >> log, inputs: [other/]}
      """)
    try folder.write("gen/out.txt", "v0\n")
    try folder.write("other/x.txt", "x0\n")
    let oprun = try OprunProcess(["--watch", "jobs.yaml"], in: folder)
    try waitForWatching(oprun, times: 1)
    // Until gen/out.txt is older than the second within which a file's times are not trusted:
    // the next cycle's look at it goes into the hash cache as trusted.
    try waitUntil("gen/out.txt is more than a second old") {
      var status = stat()
      guard stat(folder.path("gen/out.txt"), &status) == 0 else { return false }
      let changed = Double(status.st_ctim.tv_sec) + Double(status.st_ctim.tv_nsec) / 1e9
      return Date().timeIntervalSince1970 - changed > 1.2
    }
    try folder.write("other/x.txt", "x1\n")
    try waitForWatching(oprun, times: 2)
    #expect(ranJobs(folder).sorted() == ["other", "other", "v0"], "show is up to date")
    try folder.write("gen/out.txt", "by hand\n")  // an output: no cycle
    try folder.write("other/x.txt", "x2\n")
    try waitForWatching(oprun, times: 3)
    #expect(ranJobs(folder).filter { $0 != "other" } == ["v0", "by hand"], "show saw its input changed")
    #expect(changedLines(oprun) == ["oprun: changed: other/x.txt", "oprun: changed: other/x.txt"])
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  /// From the second cycle on, a cycle's first look at the inputs is the last cycle's with
  /// only what the kernel named looked at again: each kind of change is still seen.
  @Test func inLaterCyclesEditsNewFilesRemovedFilesAndNewFoldersAreEachSeen() throws {
    let folder = try Scratch()
    let oprun = try startWatching(folder)
    try waitForWatching(oprun, times: 1)
    var cycles = 1
    func change(_ what: String, _ body: () throws -> Void) throws {
      try body()
      cycles += 1
      try waitForWatching(oprun, times: cycles)
      #expect(ranJobs(folder).count == cycles + 1, "\(what) built")
    }
    for edit in 1...3 { try change("edit \(edit)") { try folder.write("src/a.txt", "a\(edit)\n") } }
    #expect(folder.read("out.txt") == "a3\n")
    try change("a new file") { try folder.write("src/b.txt", "b\n") }
    #expect(folder.read("out.txt") == "a3\nb\n")
    try change("a removed file") { try FileManager.default.removeItem(atPath: folder.path("src/b.txt")) }
    #expect(folder.read("out.txt") == "a3\n")
    try change("a new folder with a file") {
      try FileManager.default.createDirectory(atPath: folder.path("src/later"), withIntermediateDirectories: true)
      try folder.write("src/later/c.txt", "c\n")
    }
    try change("an edit in it") { try folder.write("src/later/c.txt", "c2\n") }
    try change("the folder removed") { try FileManager.default.removeItem(atPath: folder.path("src/later")) }
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  /// `writer` makes `data/new.txt`, in the folder `reader` reads, after `reader` was found up
  /// to date: the file is the cycle's own output, which starts no cycle, yet the next cycle's
  /// `reader` sees it, though its look at `data/` is the last cycle's.
  @Test func aFileAJobMadeAfterAnotherLookedIsSeenByThatOneNextCycle() throws {
    let folder = try Scratch()
    try folder.write(
      "jobs.yaml",
      """
      jobs:
        reader:
          command: cat data/*.txt >> seen.txt
          inputs: [data/]
        writer:
          command: if grep -q keep a.txt; then cp a.txt data/new.txt; fi
          dependencies: [reader]
          inputs: [a.txt]
          outputs: [data/new.txt]
      """)
    try folder.write("data/old.txt", "old\n")
    try folder.write("a.txt", "a1\n")
    let oprun = try OprunProcess(["--watch", "--events", "events.ndjson", "jobs.yaml", "writer"], in: folder)
    try waitForWatching(oprun, times: 1)
    try folder.write("a.txt", "keep2\n")
    try waitForWatching(oprun, times: 2)
    #expect(folder.read("seen.txt") == "old\n", "reader was up to date, then writer made data/new.txt")
    try folder.write("a.txt", "keep3\n")
    try waitForWatching(oprun, times: 3)
    #expect(folder.read("seen.txt") == "old\nkeep2\nold\n", "the next cycle's reader saw data/new.txt")
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  @Test func ctrlCWhileWaitingEndsWith130() throws {
    let folder = try Scratch()
    let oprun = try startWatching(folder)
    try waitForWatching(oprun, times: 1)
    oprun.send(SIGINT)
    let finished = oprun.wait()
    #expect(finished.signal == SIGINT, "a calling shell sees 130")
  }

  @Test func watchingWhenNoSelectedJobDeclaresInputsIsAUsageError() throws {
    let folder = try Scratch()
    try folder.write("jobs.yaml", Self.site)
    let finished = try runOprun(["--watch", "jobs.yaml", "setup"], in: folder)
    #expect(finished.status == 2)
    #expect(finished.stderr.contains("no selected job declares `inputs`"))
    #expect(finished.stderr.contains("add `inputs: [...]`"))
    #expect(!folder.exists("log"), "nothing ran")
  }
}
