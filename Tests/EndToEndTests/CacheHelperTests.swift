import Foundation
import Testing

/// A cache server's requests go through `oprun-http`, one helper process per connection,
/// where it is beside oprun (`make build`, `make test`): a static oprun cannot load libcurl
/// itself (docs/ARCHITECTURE.md).
@Suite struct CacheHelperTests {
  /// A job that waits for `go` after saying it is `ready`, then writes its output.
  static let waitingJob =
    "jobs:\n  waiter:\n    command: touch ready; while [ ! -e go ]; do sleep 0.01; done; echo made > out.txt\n"
    + "    outputs: [out.txt]\n"

  @Test func theServersRequestsGoThroughOprunHTTPWhichEndsWithTheRun() throws {
    let program = try #require(helperBesideOprun, "no oprun-http beside \(oprunBinary): make builds it")
    let cache = try CacheUnderTest(.nginx)
    let folder = try Scratch()
    try folder.manifest(Self.waitingJob)
    let marker = UUID().uuidString
    let oprun = try OprunProcess(
      runArguments(cache.arguments), in: folder, environment: ["OPRUN_TEST_RUN": marker])
    // The job starts after its lookup (a miss): the connection that made it is kept for the store.
    try folder.waitUntilExists("ready")
    let helpers = liveHelpers(named: "oprun-http", withEnvironment: "OPRUN_TEST_RUN=\(marker)")
    #expect(!helpers.isEmpty)
    for helper in helpers {
      #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(helper)/exe") == program)
      // It holds nothing of oprun's open: its output, the event stream, the journal.
      let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(helper)/fd").map { fd in
        (fd, (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(helper)/fd/\(fd)")) ?? "")
      }
      for (fd, target) in open {
        if ["0", "1", "2"].contains(fd) { #expect(target == "/dev/null", "descriptor \(fd): \(target)") }
        #expect(!target.hasPrefix(folder.url.path) && !target.contains("/.oprun/"), "descriptor \(fd): \(target)")
      }
    }
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.events.named("cache-stored", job: "waiter").count == 1)
    #expect(!run.stderr.contains("warning"), "\(run.stderr)")
    try waitUntil("oprun-http to end with its run") {
      liveHelpers(named: "oprun-http", withEnvironment: "OPRUN_TEST_RUN=\(marker)").isEmpty
    }

    // What went up through it comes back through it.
    let copy = try Scratch()
    try copy.manifest(Self.waitingJob)
    let restored = try runOprun(runArguments(cache.arguments), in: copy)
    #expect(restored.status == 0, "\(restored.stderr)")
    #expect(copy.events.named("cache-hit", job: "waiter").count == 1)
    #expect(copy.read("out.txt") == "made\n")
  }

  /// An entry larger than any of oprun's is a miss with one warning that says so: its
  /// transfer is stopped halfway, and the request after it (the job's result, stored) goes
  /// through the store as before.
  @Test func anEntryTooLargeIsAMissAndTheStoreGoesOn() throws {
    let cache = try CacheUnderTest(.nginx)
    let manifest = "jobs:\n  made:\n    command: echo made > out.txt\n    outputs: [out.txt]\n"
    let first = try Scratch()
    try first.manifest(manifest)
    #expect(try runOprun(runArguments(cache.arguments), in: first).status == 0)
    let key = try #require(first.events.named("cache-stored", job: "made").first?["key"] as? String)
    let entry = cache.storeRoot + "/ac/" + key
    #expect(truncate(entry, 65 << 20) == 0)

    let folder = try Scratch()
    try folder.manifest(manifest)
    let run = try runOprun(runArguments(cache.arguments), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("larger than 64 MB, no entry of oprun's"), "\(run.stderr)")
    #expect(run.stderr.components(separatedBy: "oprun: warning: cache").count == 2, "\(run.stderr)")
    #expect(folder.events.named("cache-miss", job: "made").count == 1)
    #expect(folder.events.named("cache-stored", job: "made").count == 1)
    let size = try FileManager.default.attributesOfItem(atPath: entry)[.size] as? Int
    #expect((size ?? 0) < 1 << 20, "the entry stored again: \(size ?? -1) bytes")
  }

  /// Without oprun's socket it has nothing to serve, and says how it is meant to be started.
  @Test(arguments: [[], ["--oprun-http-channel-1", "0"]])
  func oprunHTTPRunByHandRefuses(arguments: [String]) throws {
    let program = try #require(helperBesideOprun, "no oprun-http beside \(oprunBinary): make builds it")
    let folder = try Scratch()
    let run = try OprunProcess(arguments, in: folder, executable: program, named: "helper").wait()
    #expect(run.status == 2)
    #expect(run.stderr.contains("oprun-http: started by oprun for its cache server, not by hand"), "\(run.stderr)")
  }

  /// An oprun copied alone loads libcurl itself when it is linked dynamically (a debug build),
  /// and a static one says what is missing: the run goes on either way.
  @Test func anOprunCopiedWithoutOprunHTTP() throws {
    let cache = try CacheUnderTest(.nginx)
    let folder = try Scratch()
    let copy = folder.path("oprun")
    try FileManager.default.copyItem(atPath: oprunBinary, toPath: copy)
    try folder.manifest("jobs:\n  made:\n    command: echo made > out.txt\n    outputs: [out.txt]\n")
    let run = try OprunProcess(runArguments(cache.arguments), in: folder, executable: copy).wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.read("out.txt") == "made\n")
    if try isStaticExecutable(copy) {
      #expect(run.stderr.contains("oprun-http is missing beside oprun's executable"), "\(run.stderr)")
      #expect(folder.events.named("cache-stored").isEmpty)
    } else {
      #expect(!run.stderr.contains("warning"), "\(run.stderr)")
      #expect(folder.events.named("cache-stored", job: "made").count == 1)
    }
  }

  private var helperBesideOprun: String? { programBesideOprun("oprun-http") }
}

/// Whether the ELF executable at `path` has no interpreter (no `PT_INTERP` program header):
/// no dynamic loader runs for it.
private func isStaticExecutable(_ path: String) throws -> Bool {
  let bytes = try #require(FileManager.default.contents(atPath: path)).prefix(1 << 16)
  func integer(at offset: Int, size: Int) -> Int {
    (0..<size).reduce(0) { value, index in value | Int(bytes[bytes.startIndex + offset + index]) << (8 * index) }
  }
  let headers = integer(at: 32, size: 8)
  let headerSize = integer(at: 54, size: 2)
  let count = integer(at: 56, size: 2)
  return !(0..<count).contains { integer(at: headers + $0 * headerSize, size: 4) == 3 }
}
