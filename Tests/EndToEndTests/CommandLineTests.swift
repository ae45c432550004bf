import Foundation
import Testing

/// The command line (SPEC §4) and the stream's promises over every kind of ending.
@Suite struct CommandLineTests {
  static let chain = """
    jobs:
      a: {command: touch a.ran}
      b: {command: touch b.ran, dependencies: [a]}
      c: {command: touch c.ran, dependencies: [b]}
      d: {command: touch d.ran, priority: high}
    """

  @Test func dryRunPrintsThePlanAndRunsNothing() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let run = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(run.status == 0)
    let steps = run.stdout.split(separator: "\n").filter { $0.contains(". ") && $0.hasPrefix("  ") }
    let jobs = steps.compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
    #expect(jobs == ["d", "a", "b", "c"], "\(run.stdout)")
    #expect(run.stdout.contains("waits for a"))
    for job in ["a", "b", "c", "d"] { #expect(!folder.exists("\(job).ran")) }
  }

  @Test func versionPrintsTheVersionTheManPageNames() throws {
    let run = try runOprun(["--version"], in: Scratch())
    #expect(run.status == 0)
    let version = try #require(run.stdout.wholeMatch(of: /([0-9]+\.[0-9]+\.[0-9]+\S*)\n/)?.1)
    let manPage = try String(contentsOf: packageRoot.appendingPathComponent("man/oprun.1"), encoding: .utf8)
    #expect(manPage.prefix { $0 != "\n" }.contains("\"oprun \(version)\""))
  }

  @Test func namedTargetsRunOnlyThemAndTheirDependencies() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let run = try runOprun(runArguments(["b"]), in: folder)
    #expect(run.status == 0)
    #expect(folder.exists("a.ran") && folder.exists("b.ran"))
    #expect(!folder.exists("c.ran") && !folder.exists("d.ran"))
    let log = folder.events
    #expect(log.announcedJobCount == 2)
    #expect(Set(log.finishedCounts.keys) == ["a", "b"])
    expectStreamContract(log)
  }

  @Test func aJoinedConcurrencyIsTakenLikeASeparateOne() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let run = try runOprun(["-j1", "-q", "jobs.yaml"], in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    for job in ["a", "b", "c", "d"] { #expect(folder.exists("\(job).ran")) }
  }

  /// A negative number is a value to refuse with its reason, not a missing value.
  @Test(arguments: [
    (["-j", "-1"], "invalid value '-1' for -j"), (["-j", "0"], "invalid value '0' for -j"),
    (["--grace", "-1"], "invalid value '-1' for --grace"),
    (["--trace", "-"], "--trace needs a file"),
    (["--events", "out.json", "--trace", "./out.json"], "--events and --trace name the same file"),
  ])
  func aBadOptionValueSaysWhatIsWrongAndRunsNothing(arguments: [String], complaint: String) throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let run = try runOprun(arguments + ["jobs.yaml"], in: folder)
    #expect(run.status == 2)
    #expect(run.stderr.contains(complaint), "\(run.stderr)")
    #expect(!run.stderr.contains("Missing value"))
    for job in ["a", "b", "c", "d"] { #expect(!folder.exists("\(job).ran")) }
  }

  @Test func anUnknownTargetExitsTwoAndRunsNothing() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let run = try runOprun(runArguments(["bb"]), in: folder)
    #expect(run.status == 2)
    #expect(run.stderr.contains("unknown job 'bb'"), "\(run.stderr)")
    for job in ["a", "b", "c", "d"] { #expect(!folder.exists("\(job).ran")) }
    #expect(folder.events.events.isEmpty)
  }

  @Test func aManifestErrorIsReportedWithItsPlaceExitsTwoAndRunsNothing() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        fine: {command: touch fine.ran}
        broken: {command: 'true', dependencies: [fien]}
        typo: {comand: 'true'}
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 2)
    #expect(run.stderr.contains("jobs.yaml:3:"), "\(run.stderr)")
    #expect(run.stderr.contains("unknown dependency 'fien'"))
    #expect(run.stderr.contains("jobs.yaml:4:"))
    #expect(!folder.exists("fine.ran"))
    #expect(folder.events.events.isEmpty)
  }

  @Test func eventsToStandardOutputSendHumanOutputToStandardError() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  hello: {command: echo hi}\n")
    let run = try runOprun(["jobs.yaml", "--events", "-"], in: folder)
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n")
    #expect(!lines.isEmpty)
    for line in lines {
      #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(line)")
    }
    #expect(run.stderr.contains("hello | hi"))
  }

  @Test func runFinishedIsLastAndCountsEveryJobsOneFinishedTransition() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 2
      jobs:
        fine: {command: 'true'}
        broken: {command: exit 2}
        skipped: {command: 'true', dependencies: [broken]}
        slow: {command: sleep 30, timeout: 200ms}
        flaky: {command: '[ "$OPRUN_ATTEMPT" = 2 ]', retries: 1}
        cleanup: {command: 'true', dependencies: [broken, slow], run-if: always}
      """)
    let run = try runOprun(runArguments(["-k", "--grace", "0.2"]), in: folder)
    #expect(run.status == 1)
    let log = folder.events
    expectStreamContract(log)
    var tally: [String: Int] = [:]
    for job in log.finishedCounts.keys { tally[log.outcome(of: job)!, default: 0] += 1 }
    #expect(tally == ["succeeded": 3, "failed": 1, "skipped": 1, "timed-out": 1])
    let counts = try #require(log.last?["counts"] as? [String: Any])
    for (outcome, number) in tally { #expect(counts.int(outcome) == number, "\(outcome)") }
    #expect(counts.int("cancelled") == 0)
    #expect(log.finishedExitCode == 1)
  }
}
