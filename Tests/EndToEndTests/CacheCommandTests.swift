import Foundation
import Testing

/// What a user sees of a cache outside a run (SPEC §14): `-n` says which jobs the cache would
/// restore, `oprun cache stats` what a folder holds and how its last runs used it, `oprun
/// cache clean` empties or trims it; and a secret a job printed is stored masked (§15).
@Suite struct CacheCommandTests {
  static let project = """
    cache: {path: shared-cache}
    jobs:
      build:
        command: sh -c 'echo building; cat src.txt > app'
        inputs: [src.txt]
        outputs: [app]
      test:
        command: sh -c 'cat app > report; echo tested >> report'
        dependencies: [build]
        inputs: [app]
        outputs: [report]
    """

  /// Two copies of one project sharing the cache folder `cache`, the first built.
  static func builtAndClean() throws -> (cache: Scratch, built: Scratch, clean: Scratch) {
    let cache = try Scratch()
    var copies: [Scratch] = []
    for _ in 0..<2 {
      let copy = try Scratch()
      try copy.manifest(project.replacingOccurrences(of: "shared-cache", with: cache.path("store")))
      try copy.write("src.txt", "one\n")
      copies.append(copy)
    }
    let built = try runOprun([], in: copies[0])
    #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
    return (cache, copies[0], copies[1])
  }

  @Test func dryRunSaysWhichJobsTheCacheWouldRestoreAndRunsNothing() throws {
    let (cache, _, clean) = try Self.builtAndClean()
    defer { withExtendedLifetime(cache) {} }
    let plan = try runOprun(["-n"], in: clean)
    #expect(plan.status == 0, "\(plan.stderr)")
    #expect(plan.stdout.contains("2 restored from cache, 0 to run"), "\(plan.stdout)")
    #expect(plan.stdout.contains("build  restored from cache"), "\(plan.stdout)")
    // Its dependent reads what restoring build would write: its key is made of those files.
    #expect(plan.stdout.contains("test   restored from cache"), "\(plan.stdout)")
    #expect(!FileManager.default.fileExists(atPath: clean.path("app")), "-n restores nothing")

    let withoutCache = try runOprun(["-n", "--no-cache"], in: clean)
    #expect(withoutCache.stdout.contains("build  runs: no record of it"), "\(withoutCache.stdout)")

    try clean.write("src.txt", "two\n")
    let changed = try runOprun(["-n"], in: clean)
    #expect(changed.stdout.contains("build  runs: no record of it"), "\(changed.stdout)")
    #expect(changed.stdout.contains("test   runs: no record of it"), "\(changed.stdout)")
  }

  @Test func statsCountsEntriesBlobsAndTheLastRunsHitsAndMisses() throws {
    let (cache, _, clean) = try Self.builtAndClean()
    defer { withExtendedLifetime(cache) {} }
    #expect(try runOprun([], in: clean).status == 0)
    let stats = try runOprun(["cache", "stats"], in: clean)
    #expect(stats.status == 0, "\(stats.stderr)")
    #expect(stats.stdout.contains(": 2 entries, 2 blobs, "), "\(stats.stdout)")
    #expect(stats.stdout.contains("last 2 runs: 2 hits, 2 misses (50 % hit), 2 stored"), "\(stats.stdout)")

    let json = try runOprun(["cache", "stats", "--json"], in: clean)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
    #expect(object["entries"] as? Int == 2)
    let runs = try #require(object["runs"] as? [[String: Any]])
    #expect(runs.map { $0["hits"] as? Int } == [2, 0], "newest first")
  }

  @Test func cleanEmptiesTheFolderAndKeepTrimsItToASize() throws {
    let (cache, built, clean) = try Self.builtAndClean()
    let kept = try runOprun(["cache", "clean", "--keep", "1"], in: built)
    #expect(kept.status == 0, "\(kept.stderr)")
    #expect(kept.stdout.contains("removed 4 files"), "\(kept.stdout)")
    #expect(try runOprun(["--events", "events.ndjson"], in: clean).status == 0)
    #expect(clean.events.executed("build"), "nothing left to restore")

    let emptied = try runOprun(["cache", "clean", "--cache", cache.path("store")], in: cache)
    #expect(emptied.status == 0, "\(emptied.stderr)")
    #expect(emptied.stdout.contains("0 files (0 B) left"), "\(emptied.stdout)")
    #expect(
      try runOprun(["cache", "stats", "--cache", cache.path("store")], in: cache).stdout.contains(
        ": 0 entries, 0 blobs, 0 B"))
  }

  @Test func aCacheCommandWithoutAFolderCacheSaysWhatToGive() throws {
    let folder = try Scratch()
    try folder.manifest("jobs: {a: {command: 'true'}}")
    let none = try runOprun(["cache", "stats"], in: folder)
    #expect(none.status == 2)
    #expect(none.stderr.contains("no cache is configured: give --cache PATH"), "\(none.stderr)")
    let server = try runOprun(["cache", "clean", "--cache", "http://127.0.0.1:9/oprun"], in: folder)
    #expect(server.status == 2)
    #expect(server.stderr.contains("the cache is a server"), "\(server.stderr)")
    let badSize = try runOprun(["cache", "clean", "--keep", "2 GB"], in: folder)
    #expect(badSize.status == 2)
    #expect(badSize.stderr.contains("'2 GB' is not a size"), "\(badSize.stderr)")
  }

  @Test func aSecretAJobPrintedIsStoredMaskedAndReplayedMasked() throws {
    let cache = try Scratch()
    let manifest = """
      secrets: [DEPLOY_TOKEN]
      cache: {path: \(cache.path("store"))}
      jobs:
        build: {command: "echo token=$DEPLOY_TOKEN; echo built > app", outputs: [app]}
      """
    let environment = ["DEPLOY_TOKEN": "s3cr3t-value-42"]
    for index in 0..<2 {
      let copy = try Scratch()
      try copy.manifest(manifest)
      let run = try runOprun(["--events", "events.ndjson"], in: copy, environment: environment)
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout.contains("build | token=***"), "\(run.stdout)")
      #expect(!run.stdout.contains("s3cr3t-value-42"))
      #expect((copy.events.finish(of: "build")?["cached"] as? Bool ?? false) == (index == 1))
    }
    let stored = try FileManager.default.subpathsOfDirectory(atPath: cache.path("store")).compactMap {
      FileManager.default.contents(atPath: cache.path("store/" + $0))
    }
    #expect(!stored.isEmpty)
    #expect(!stored.contains { String(decoding: $0, as: UTF8.self).contains("s3cr3t-value-42") })
  }
}
