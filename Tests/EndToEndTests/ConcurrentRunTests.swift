import Foundation
import Testing

/// Two runs in one folder at once (SPEC §10): a job with outputs is run by one of them at a
/// time. The other waits for it, says so, and then decides again from what the first left.
/// Each test holds the first run's job on a handshake file (`go`) that the test creates.
@Suite struct ConcurrentRunTests {
  /// `gen` writes its output in two pieces, the second once `go` exists; `started` says the
  /// first piece is written.
  static let manifest = """
    jobs:
      gen:
        command: "echo first half > out.txt; touch started; while [ ! -e go ]; do sleep 0.01; done; echo second half >> out.txt"
        inputs: [in.txt]
        outputs: [out.txt]
    """

  /// A folder with the manifest and its input, a first run in it holding `gen` half written,
  /// and a second run started beside it, seen waiting for the first.
  static func secondRunWaiting() throws -> (Scratch, first: OprunProcess, second: OprunProcess) {
    let folder = try Scratch()
    try folder.manifest(manifest)
    try folder.write("in.txt", "x\n")
    let first = try OprunProcess(["--events", "first.ndjson"], in: folder, named: "first")
    try folder.waitUntilExists("started")
    let second = try OprunProcess(["--events", "second.ndjson"], in: folder, named: "second")
    try waitUntil("the second run waiting for gen") { !EventLog(path: folder.path("second.ndjson")).named("waiting").isEmpty }
    return (folder, first, second)
  }

  @Test func aSecondRunWaitsForTheFirstAndThenFindsTheJobUpToDate() throws {
    let (folder, first, second) = try Self.secondRunWaiting()
    let waiting = try #require(EventLog(path: folder.path("second.ndjson")).named("waiting").first)
    #expect(waiting.string("job") == "gen")
    #expect(waiting.int("pid") == Int(first.pid), "the lock names the oprun that holds it")
    #expect(!EventLog(path: folder.path("second.ndjson")).executed("gen"), "nothing starts while it waits")
    folder.touch("go")
    let firstRun = first.wait()
    let secondRun = second.wait()
    #expect(firstRun.status == 0, "\(firstRun.stdout)\(firstRun.stderr)")
    #expect(secondRun.status == 0, "\(secondRun.stdout)\(secondRun.stderr)")

    #expect(EventLog(path: folder.path("first.ndjson")).outcome(of: "gen") == "succeeded")
    let secondLog = EventLog(path: folder.path("second.ndjson"))
    expectStreamContract(secondLog)
    #expect(!secondLog.executed("gen"), "the second run does not run it again")
    let finish = try #require(secondLog.finish(of: "gen"))
    #expect(finish["up_to_date"] as? Bool == true)
    #expect(
      timelineLine(secondRun.stdout, "waiting", "gen")?.contains("another oprun (pid \(first.pid))") == true,
      "\(secondRun.stdout)")
    #expect(timelineLine(secondRun.stdout, "finished", "gen")?.contains("up to date") == true, "\(secondRun.stdout)")
    #expect(folder.read("out.txt") == "first half\nsecond half\n", "one writer at a time")

    let plan = try runOprun(["-n"], in: folder)
    #expect(plan.stdout.contains("1. gen  up to date"), "\(plan.stdout)")
  }

  @Test func aRunWaitingForAnOprunKilledBySIGKILLGoesOnAndRunsTheJobItLeftHalfWritten() throws {
    let (folder, first, second) = try Self.secondRunWaiting()
    let job = try #require(EventLog(path: folder.path("first.ndjson")).pids(of: "gen").first)
    first.send(SIGKILL)
    _ = first.wait()
    // Its watchdog ends the job; only then may the next writer go on. The orphan is reaped
    // by PID 1, which in a container may never do it: a zombie counts as gone.
    try waitUntil("the first run's job gone") { !isAlive(job) }
    folder.touch("go")
    let secondRun = second.wait()

    #expect(secondRun.status == 0, "\(secondRun.stdout)\(secondRun.stderr)")
    let log = EventLog(path: folder.path("second.ndjson"))
    expectStreamContract(log)
    #expect(log.executed("gen"), "half an output and no record: it runs")
    #expect(log.outcome(of: "gen") == "succeeded")
    #expect(folder.read("out.txt") == "first half\nsecond half\n")
    let plan = try runOprun(["-n"], in: folder)
    #expect(plan.stdout.contains("1. gen  up to date"), "\(plan.stdout)")
  }

  @Test func anInterruptEndsARunWaitingForTheLockWith130AndStartsNothing() throws {
    let (folder, first, second) = try Self.secondRunWaiting()
    second.send(SIGINT)
    let secondRun = second.wait()
    #expect(secondRun.signal == SIGINT, "a shell sees 130: \(secondRun.stdout)\(secondRun.stderr)")
    let log = EventLog(path: folder.path("second.ndjson"))
    expectStreamContract(log)
    #expect(!log.executed("gen"), "no process was started")
    #expect(log.outcome(of: "gen") == "cancelled")

    folder.touch("go")
    let firstRun = first.wait()
    #expect(firstRun.status == 0, "\(firstRun.stdout)\(firstRun.stderr)")
    #expect(folder.read("out.txt") == "first half\nsecond half\n")
  }
}
