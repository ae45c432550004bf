import Foundation
import Testing

/// A cache of outputs (SPEC §14): a clean copy of a project restores what another copy built,
/// byte for byte and mode for mode, without running a command; whatever goes wrong with the
/// cache is a miss, never a failure and never a wrong file. Each test runs against a folder
/// cache and against a real nginx speaking the HTTP cache protocol.
@Suite(.serialized) struct CacheTests {
  /// A build that writes an executable and a data file, and a test of it that depends on it.
  static let project = """
    jobs:
      build:
        command: sh -c 'echo building; mkdir -p out; cat src.txt > out/data; printf "#!/bin/sh\\necho hi from app\\n" > out/app; chmod 750 out/app'
        inputs: [src.txt]
        outputs: [out/]
      test:
        command: sh -c 'echo testing >&2; ./out/app > test.log'
        dependencies: [build]
        inputs: [out/app]
        outputs: [test.log]
    """

  /// A copy of the project's sources alone: no `.oprun/`, no outputs.
  static func cleanCopy(source: String = "source one\n") throws -> Scratch {
    let folder = try Scratch()
    try folder.manifest(project)
    try folder.write("src.txt", source)
    return folder
  }

  static let stores: [CacheKind] = [.folder, .nginx]

  // MARK: Restoring

  @Test(arguments: stores) func aCleanCopyRestoresEveryOutputByteIdenticalRunsNothingAndReplaysWhatJobsPrinted(
    kind: CacheKind
  ) throws {
    let cache = try CacheUnderTest(kind)
    let first = try Self.cleanCopy()
    let (built, builtLog) = try first.runCached(cache)
    #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
    #expect(builtLog.named("cache-miss").count == 2)
    #expect(Set(builtLog.named("cache-stored").compactMap { $0["job"] as? String }) == ["build", "test"])

    let second = try Self.cleanCopy()
    let (restored, log) = try second.runCached(cache)
    #expect(restored.status == 0, "\(restored.stdout)\(restored.stderr)")
    #expect(!log.executed("build") && !log.executed("test"), "no command runs")
    for job in ["build", "test"] {
      let finish = try #require(log.finish(of: job))
      #expect(finish["cached"] as? Bool == true, "\(job)")
      #expect(finish.string("outcome") == "succeeded", "\(job)")
      #expect(log.named("cache-hit", job: job).count == 1, "\(job)")
      #expect(timelineLine(restored.stdout, "finished", job)?.hasPrefix("restored from cache (saves ") == true)
    }
    for file in ["out/app", "out/data", "test.log"] {
      #expect(
        FileManager.default.contents(atPath: second.path(file))
          == FileManager.default.contents(atPath: first.path(file)), "\(file)")
      #expect(try mode(of: second.path(file)) == mode(of: first.path(file)), "\(file)")
    }
    #expect(try mode(of: second.path("out/app")) == 0o750)
    #expect(restored.stdout.contains("build | building"), "\(restored.stdout)")
    #expect(restored.stderr.contains("test | testing") || restored.stdout.contains("test | testing"))
    #expect(restored.stdout.contains("2 restored from cache"), "\(restored.stdout)")
    #expect(restored.stderr.isEmpty, "\(restored.stderr)")

    // What was restored is recorded as built: a third run finds both up to date.
    let (third, thirdLog) = try second.runCached(cache)
    #expect(third.status == 0)
    #expect(thirdLog.finish(of: "build")?["up_to_date"] as? Bool == true)
    #expect(thirdLog.finish(of: "test")?["up_to_date"] as? Bool == true)
  }

  @Test(arguments: stores) func aChangedInputRunsTheJobAndItsDependentAndStoresNewEntries(
    kind: CacheKind
  ) throws {
    let cache = try CacheUnderTest(kind)
    let first = try Self.cleanCopy()
    #expect(try first.runCached(cache).0.status == 0)
    let firstKey = try #require(first.events.named("cache-stored", job: "build").first?["key"] as? String)

    let changed = try Self.cleanCopy(source: "source two\n")
    let (run, log) = try changed.runCached(cache)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.executed("build"))
    let stored = try #require(log.named("cache-stored", job: "build").first)
    #expect(stored["key"] as? String != firstKey)
    #expect((stored["bytes"] as? Int ?? 0) > 0)
    #expect(changed.read("out/data") == "source two\n")
    // The test's key holds what build produced, which changed: it runs and is stored too.
    #expect(log.executed("test"))
    #expect(log.named("cache-stored", job: "test").count == 1)
  }

  @Test(arguments: stores) func aReadOnlyCacheStoresNothing(kind: CacheKind) throws {
    let cache = try CacheUnderTest(kind)
    let folder = try Self.cleanCopy()
    let (run, log) = try folder.runCached(cache, ["--cache-read-only"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.named("cache-miss").count == 2)
    #expect(log.named("cache-stored").isEmpty)
    #expect(try cache.storedFileCount() == 0)
  }

  @Test func noCacheWinsOverTheEnvironment() throws {
    let cache = try CacheUnderTest(.folder)
    let folder = try Self.cleanCopy()
    let run = try runOprun(runArguments(["--no-cache"]), in: folder, environment: ["OPRUN_CACHE": cache.location])
    #expect(run.status == 0)
    #expect(folder.events.named("cache-miss").isEmpty)
    #expect(try cache.storedFileCount() == 0)
    _ = try runOprun(runArguments(["-B"]), in: folder, environment: ["OPRUN_CACHE": cache.location])
    #expect(folder.events.named("cache-stored").count == 2, "OPRUN_CACHE alone configures a cache")
  }

  // MARK: A cache that fails is a miss

  @Test func aServerAnswering500IsAMissWithOneWarningAndTheExitStatusUnchanged() throws {
    let scratch = try Scratch()
    let server = try NginxServer(root: scratch.path("root"), failing: true)
    defer { server.stop() }
    let folder = try Self.cleanCopy()
    let run = try runOprun(runArguments(["--cache", server.url]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.events.executed("build") && folder.events.executed("test"))
    #expect(run.stderr.components(separatedBy: "warning: cache ").count == 2, "\(run.stderr)")
    #expect(run.stderr.contains("HTTP 500"), "\(run.stderr)")
  }

  @Test func aServerStoppedInTheMiddleOfARunIsAMissWithOneWarningAndTheExitStatusUnchanged() throws {
    let cache = try CacheUnderTest(.nginx)
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        first: {command: 'echo one > one.txt', outputs: [one.txt]}
        second:
          command: 'while [ ! -e go ]; do sleep 0.01; done; echo two > two.txt'
          dependencies: [first]
          outputs: [two.txt]
      """)
    let oprun = try OprunProcess(runArguments(cache.arguments), in: folder)
    try waitUntil("first stored and second executing") {
      !folder.events.named("cache-stored", job: "first").isEmpty && folder.events.executed("second")
    }
    cache.server?.stop()
    try folder.write("go", "")
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.read("two.txt") == "two\n")
    #expect(folder.events.named("cache-stored", job: "second").isEmpty)
    #expect(run.stderr.components(separatedBy: "warning: cache ").count == 2, "\(run.stderr)")
  }

  @Test func theTokenGoesToTheServerAndIntoNoOutput() throws {
    let cache = try CacheUnderTest(.nginx)
    let token = "t0ken-never-printed-7"
    let folder = try Self.cleanCopy()
    let run = try runOprun(runArguments(cache.arguments), in: folder, environment: ["OPRUN_CACHE_TOKEN": token])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.events.named("cache-stored").count == 2)
    let log = try #require(cache.server?.accessLog)
    #expect(log.contains("\"Bearer \(token)\""), "\(log)")
    let written = [run.stdout, run.stderr, folder.read(eventsFile) ?? ""].joined()
    #expect(!written.contains(token))
  }

  @Test(arguments: stores) func aCorruptBlobIsAMissWithOneWarningAndTheJobRuns(kind: CacheKind) throws {
    let cache = try CacheUnderTest(kind)
    #expect(try Self.cleanCopy().runCached(cache).0.status == 0)
    try cache.corruptEveryBlob()

    let folder = try Self.cleanCopy()
    let (run, log) = try folder.runCached(cache)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.executed("build"))
    #expect(log.named("cache-miss", job: "build").count == 1)
    #expect(folder.read("out/data") == "source one\n")
    #expect(folder.read("test.log") == "hi from app\n")
    #expect(run.stderr.components(separatedBy: "oprun: warning: cache").count == 2, "\(run.stderr)")
    #expect(run.stderr.contains("corrupt"), "\(run.stderr)")
  }

  @Test(arguments: [EntryPath.parent, .absolute, .input, .throughLink])
  func anEntryThatNamesAPathOutsideTheJobsOutputsWritesNothing(path: EntryPath) throws {
    let cache = try CacheUnderTest(.folder)
    let folder = try Self.cleanCopy()
    let outside = try Scratch()
    if path == .throughLink {
      try FileManager.default.createSymbolicLink(atPath: folder.path("out"), withDestinationPath: outside.path("."))
    }
    // A read-only run says the key each job is looked up by.
    _ = try folder.runCached(cache, ["--cache-read-only", "--no-journal"])
    let key = try #require(folder.events.named("cache-miss", job: "build").first?["key"] as? String)
    let named: String
    switch path {
    case .parent: named = "../evil"
    case .absolute: named = outside.path("evil")
    case .input: named = "src.txt"
    case .throughLink: named = "out/evil"
    }
    try cache.craftEntry(key: key, path: named, content: "evil\n")

    let (run, log) = try folder.runCached(cache)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(log.executed("build"), "the entry is ignored: the job runs")
    #expect(
      !FileManager.default.fileExists(
        atPath: folder.url.deletingLastPathComponent().appendingPathComponent("evil").path))
    #expect(!outside.exists("evil"))
    #expect(folder.read("src.txt") == "source one\n")
    #expect(run.stderr.contains("oprun: warning: cache"), "\(run.stderr)")
  }

  /// Both runs look up before either stores: the job of each waits until both have started.
  @Test(arguments: stores) func twoRunsStoringTheSameKeyAtOnceLeaveOneValidEntry(kind: CacheKind) throws {
    let cache = try CacheUnderTest(kind)
    let gate = try Scratch()
    let manifest = """
      jobs:
        build:
          command: sh -c 'touch "$GATE/started-$$"; while [ ! -e "$GATE/go" ]; do sleep 0.01; done; cat src.txt > out.txt'
          inputs: [src.txt]
          outputs: [out.txt]
      """
    let copies = try (0..<2).map { _ in try Scratch() }
    for copy in copies {
      try copy.manifest(manifest)
      try copy.write("src.txt", "shared\n")
    }
    let runs = try copies.map {
      try OprunProcess(runArguments(cache.arguments), in: $0, environment: ["GATE": gate.path(".")])
    }
    try waitUntil("both builds started") {
      ((try? FileManager.default.contentsOfDirectory(atPath: gate.path(".")))?.count ?? 0) >= 2
    }
    gate.touch("go")
    for run in runs { #expect(run.wait().status == 0) }
    let keys = copies.map { $0.events.named("cache-stored", job: "build").first?["key"] as? String }
    #expect(keys[0] != nil && keys[0] == keys[1], "both stored the one key")

    let clean = try Scratch()
    try clean.manifest(manifest)
    try clean.write("src.txt", "shared\n")
    let run = try runOprun(runArguments(cache.arguments), in: clean)
    #expect(run.status == 0)
    #expect(clean.events.finish(of: "build")?["cached"] as? Bool == true)
    #expect(clean.read("out.txt") == "shared\n")
  }

  // MARK: A folder cache

  @Test func maxSizeTrimsTheFolderLeastRecentlyUsedFirst() throws {
    let cache = try CacheUnderTest(.folder)
    let manifest = """
      cache:
        path: \(cache.location)
        max-size: 3000
      jobs:
        make:
          command: sh -c 'yes "$(cat seed)" | head -c 2000 > blob'
          inputs: [seed]
          outputs: [blob]
      """
    let folder = try Scratch()
    try folder.manifest(manifest)
    for seed in ["a", "b", "c"] {
      try folder.write("seed", seed)
      let run = try runOprun(runArguments(), in: folder)
      #expect(run.status == 0, "\(run.stderr)")
      #expect(folder.events.named("cache-stored").count == 1)
      #expect(try cache.storedBytes() <= 3000)
    }
    // The newest entry is kept whole: a clean copy with seed c restores it.
    try FileManager.default.removeItem(atPath: folder.path(".oprun"))
    try FileManager.default.removeItem(atPath: folder.path("blob"))
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0)
    #expect(folder.events.finish(of: "make")?["cached"] as? Bool == true)
    #expect(folder.read("blob") == String(repeating: "c\n", count: 1000))
  }
}

enum EntryPath: String, CustomTestStringConvertible {
  case parent, absolute, input, throughLink
  var testDescription: String { rawValue }
}

extension Scratch {
  /// Runs the project with `cache` and the event stream on.
  fileprivate func runCached(_ cache: CacheUnderTest, _ extra: [String] = []) throws -> (Finished, EventLog) {
    let run = try runOprun(runArguments(cache.arguments + extra), in: self)
    return (run, events)
  }
}

private func mode(of path: String) throws -> Int {
  let attributes = try FileManager.default.attributesOfItem(atPath: path)
  return (attributes[.posixPermissions] as? Int) ?? -1
}
