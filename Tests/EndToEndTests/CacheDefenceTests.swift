import Foundation
import Testing

/// What a cache of outputs must never do (SPEC §14), whatever its folder holds or however the
/// run ends: run a restored job's completion, plant set-user-ID files or git hooks, hang on a
/// blob that is no file, leave half-restored files behind, store a link it cannot put back,
/// store itself, or crash on a damaged count of runs.
@Suite struct CacheDefenceTests {
  /// A project using the cache folder `store` (absolute) with `jobs`.
  static func project(_ jobs: String, cache store: String) throws -> Scratch {
    let folder = try Scratch()
    try folder.manifest("cache: {path: \(store)}\njobs:\n" + jobs)
    return folder
  }

  /// Every entry file of the folder cache at `store`.
  static func entries(in store: String) -> [String] {
    let top = store + "/ac"
    return (FileManager.default.subpaths(atPath: top) ?? []).map { top + "/" + $0 }.filter { path in
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }
  }

  /// Runs `folder`'s manifest with the event stream on.
  static func run(_ folder: Scratch, _ extra: [String] = []) throws -> (Finished, EventLog) {
    let finished = try runOprun(runArguments(extra), in: folder)
    return (finished, folder.events)
  }

  @Test func aRestoredJobRunsNoCompletion() throws {
    let cache = try Scratch()
    let jobs = """
        make:
          command: echo made > made.txt
          outputs: [made.txt]
          completion: echo completed >> completions.log
      """
    let first = try Self.project(jobs, cache: cache.path("store"))
    #expect(try Self.run(first).0.status == 0)
    try FileManager.default.removeItem(atPath: first.path("made.txt"))
    let (second, log) = try Self.run(first)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(log.finish(of: "make")?["cached"] as? Bool == true)
    #expect(log.named("completion-started").isEmpty, "\(second.stdout)")
    #expect(first.read("completions.log") == "completed\n", "the first run's completion alone")
  }

  @Test func anEntryAskingForSetUserIDGetsThePermissionsOnly() throws {
    let cache = try Scratch()
    let folder = try Self.project(
      "    tool: {command: 'echo x > tool; chmod 755 tool', outputs: [tool]}\n", cache: cache.path("store"))
    #expect(try Self.run(folder).0.status == 0)
    let entry = try #require(Self.entries(in: cache.path("store")).first)
    let text = try String(contentsOfFile: entry, encoding: .utf8)
    try text.replacingOccurrences(of: "\"mode\":493", with: "\"mode\":3565").write(
      toFile: entry, atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: folder.path("tool"))
    let (run, log) = try Self.run(folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.finish(of: "tool")?["cached"] as? Bool == true)
    let mode = try FileManager.default.attributesOfItem(atPath: folder.path("tool"))[.posixPermissions] as? Int
    #expect(mode == 0o755)
  }

  @Test func anEntryNamingAGitHookWritesNothingThere() throws {
    let cache = try Scratch()
    let folder = try Self.project(
      "    all: {command: 'mkdir -p out; echo x > out/out.txt', outputs: ['out/**']}\n", cache: cache.path("store"))
    try FileManager.default.createDirectory(atPath: folder.path("out/.git/hooks"), withIntermediateDirectories: true)
    #expect(try Self.run(folder).0.status == 0)
    let entry = try #require(Self.entries(in: cache.path("store")).first)
    let text = try String(contentsOfFile: entry, encoding: .utf8)
    try text.replacingOccurrences(of: "\"path\":\"out/out.txt\"", with: "\"path\":\"out/.git/hooks/pre-commit\"").write(
      toFile: entry, atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: folder.path("out/out.txt"))
    let (run, log) = try Self.run(folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(!folder.exists("out/.git/hooks/pre-commit"))
    #expect(log.executed("all"), "the entry is refused: the job runs")
    #expect(run.stderr.contains("which a restore never writes"), "\(run.stderr)")
  }

  @Test func aBlobThatIsAFIFOIsAMissNotAHang() throws {
    let cache = try Scratch()
    let folder = try Self.project(
      "    make: {command: 'echo made > made.txt', outputs: [made.txt]}\n", cache: cache.path("store"))
    #expect(try Self.run(folder).0.status == 0)
    let blobs = cache.path("store/cas")
    let blob = try #require(FileManager.default.subpaths(atPath: blobs)?.first { $0.count > 3 })
    try FileManager.default.removeItem(atPath: blobs + "/" + blob)
    #expect(mkfifo(blobs + "/" + blob, 0o644) == 0)
    try FileManager.default.removeItem(atPath: folder.path("made.txt"))
    let oprun = try OprunProcess(runArguments(), in: folder)
    try waitUntil("the run to end") { !oprun.process.isRunning }
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.events.executed("make"))
    #expect(run.stderr.contains("is not a regular file"), "\(run.stderr)")
  }

  @Test func aRestoreInterruptedLeavesNoTemporaryFileAndNoOutput() throws {
    let cache = try Scratch()
    let jobs = "    big: {command: 'head -c 300000000 /dev/zero > big.bin', outputs: [big.bin]}\n"
    let folder = try Self.project(jobs, cache: cache.path("store"))
    #expect(try Self.run(folder).0.status == 0)
    try FileManager.default.removeItem(atPath: folder.path("big.bin"))
    let oprun = try OprunProcess(runArguments(), in: folder)
    func restoring() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: folder.path("."))) ?? []).filter {
        $0.hasPrefix(".oprun-restore")
      }
    }
    try waitUntil("a file being restored") { !restoring().isEmpty || !oprun.process.isRunning }
    oprun.send(SIGINT)
    let run = oprun.wait()
    if run.signal == SIGINT {
      #expect(restoring().isEmpty, "\(restoring())")
      #expect(!folder.exists("big.bin"))
    } else {
      // The restore ended before the signal came: the output is whole.
      #expect(try FileManager.default.attributesOfItem(atPath: folder.path("big.bin"))[.size] as? Int == 300_000_000)
    }
  }

  @Test func aJobWhoseOutputIsALinkIsNotStored() throws {
    let cache = try Scratch()
    let jobs = "    link: {command: 'echo y > real.txt; ln -sf real.txt link.txt', outputs: [link.txt, real.txt]}\n"
    let folder = try Self.project(jobs, cache: cache.path("store"))
    let (first, firstLog) = try Self.run(folder)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(firstLog.named("cache-stored").isEmpty)
    for file in ["real.txt", "link.txt"] { try FileManager.default.removeItem(atPath: folder.path(file)) }
    let (second, log) = try Self.run(folder)
    #expect(second.status == 0)
    #expect(log.executed("link"))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder.path("link.txt"))) == "real.txt")
  }

  @Test func aCacheFolderInsideAJobsOutputsIsNotStoredInItself() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      cache: {path: dist/cache}
      jobs:
        site: {command: 'mkdir -p dist; echo page > dist/index.html', outputs: [dist/]}
      """)
    // The first run stores before the cache folder is made in dist/; the next that runs finds it there.
    #expect(try Self.run(folder).0.status == 0)
    let (run, log) = try Self.run(folder, ["-B"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.named("cache-stored").isEmpty)
    #expect(run.stderr.contains("the cache folder holds dist/cache/"), "\(run.stderr)")
  }

  @Test func aURLOfAnotherSchemeIsAMissWithOneWarningNotAFolder() throws {
    let folder = try Scratch()
    try folder.manifest("jobs: {make: {command: 'echo made > made.txt', outputs: [made.txt]}}")
    let run = try runOprun(runArguments(), in: folder, environment: ["OPRUN_CACHE": "ftp://cache.example/oprun"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("over http:// or https://, not this scheme"), "\(run.stderr)")
    #expect(!folder.exists("ftp:"))
  }

  @Test func statsOfDamagedCountsNeitherCrashesNorOverflows() throws {
    let folder = try Scratch()
    try FileManager.default.createDirectory(atPath: folder.path("store"), withIntermediateDirectories: true)
    try folder.write("store/runs", "1 9223372036854775807 0 0\n2 1 0 0\n3 -5 -5 -5 -5\ngarbage\n4 3 1 1\n")
    let stats = try runOprun(["cache", "stats", "--cache", folder.path("store")], in: folder)
    #expect(stats.status == 0, "\(stats.stderr)")
    #expect(stats.stdout.contains("last 2 runs: 4 hits, 1 miss (80 % hit), 1 stored"), "\(stats.stdout)")
  }

  @Test func dryRunLooksWithoutMarkingEntriesUsedAndCleanLeavesForeignFiles() throws {
    let cache = try Scratch()
    let folder = try Self.project(
      "    make: {command: 'echo made > made.txt', outputs: [made.txt]}\n", cache: cache.path("store"))
    #expect(try Self.run(folder).0.status == 0)
    let entry = try #require(Self.entries(in: cache.path("store")).first)
    let past = Date(timeIntervalSince1970: 1_000_000_000)
    try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: entry)
    try FileManager.default.removeItem(atPath: folder.path("made.txt"))
    let plan = try runOprun(["-n"], in: folder)
    #expect(plan.stdout.contains("make  restored from cache"), "\(plan.stdout)")
    #expect(try FileManager.default.attributesOfItem(atPath: entry)[.modificationDate] as? Date == past)

    try FileManager.default.createDirectory(atPath: cache.path("store/ac/zz"), withIntermediateDirectories: true)
    try cache.write("store/ac/zz/notes", "mine\n")
    let clean = try runOprun(["cache", "clean", "--keep", "0", "--cache", cache.path("store")], in: folder)
    #expect(clean.status == 0, "\(clean.stderr)")
    #expect(cache.read("store/ac/zz/notes") == "mine\n")
    #expect(Self.entries(in: cache.path("store")) == [cache.path("store/ac/zz/notes")])
  }
}
