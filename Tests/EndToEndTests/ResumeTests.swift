import Foundation
import Testing

/// The journal and `--resume` (SPEC §9). Every job appends its name to the file `log` in
/// its folder, so that a test counts how many times each job ran over several runs.
@Suite struct ResumeTests {
  // MARK: A failure fixed

  /// 40 jobs in 8 chains of 5, each job also depending on the job one step up the next chain
  /// over, so that what runs below `j37` spreads across chains; `j37` fails until `fixed` exists.
  static let layeredJobs: [(name: String, dependencies: [String])] = (1...40).map { number in
    let chain = (number - 1) / 5
    let depth = (number - 1) % 5
    func name(chain: Int, depth: Int) -> String { jobName(chain * 5 + depth + 1) }
    let dependencies =
      depth == 0 ? [] : [name(chain: chain, depth: depth - 1), name(chain: (chain + 1) % 8, depth: depth - 1)]
    return (jobName(number), dependencies)
  }

  static func jobName(_ number: Int) -> String { number < 10 ? "j0\(number)" : "j\(number)" }

  static var layeredManifest: String {
    var yaml = "jobs:\n"
    for job in layeredJobs {
      let command = job.name == "j37" ? "echo j37 >> log; test -f fixed" : "echo \(job.name) >> log"
      yaml += "  \(job.name):\n    command: \(command)\n"
      if !job.dependencies.isEmpty { yaml += "    dependencies: [\(job.dependencies.joined(separator: ", "))]\n" }
    }
    return yaml
  }

  @Test func resumeAfterAFixRunsOnlyTheFailedJobAndWhatDependsOnIt() throws {
    let folder = try Scratch()
    try folder.manifest(Self.layeredManifest)
    let below = downstream(of: "j37", in: Self.layeredJobs)
    #expect(below.count >= 5, "the graph spreads below j37: \(below.sorted())")

    let failed = try runOprun(runArguments(["-k"]), in: folder)
    #expect(failed.status == 1)
    #expect(folder.events.outcome(of: "j37") == "failed")
    folder.touch("fixed")
    let resumed = try runOprun(runArguments(["--resume"]), in: folder)
    #expect(resumed.status == 0, "\(resumed.stderr)")

    let log = folder.events
    expectStreamContract(log)
    let again = Set(["j37"]).union(below)
    let executed = Set(Self.layeredJobs.map(\.name).filter { log.executed($0) })
    #expect(executed == again)
    for job in Self.layeredJobs.map(\.name) {
      #expect(log.outcome(of: job) == "succeeded", "\(job)")
      #expect((log.finish(of: job)?["resumed"] as? Bool ?? false) == !again.contains(job), "\(job)")
    }
    #expect(log.firstTransition(of: "j37")?.string("why") == "failed")
    #expect(humanLine(resumed.stdout, "ready", "j37") == "runs: failed last time")
    #expect(humanLine(resumed.stdout, "ready", "j01") == "resumed")
    #expect(humanLine(resumed.stdout, "finished", "j01") == "succeeded (resumed)")

    let counts = folder.runCounts
    #expect(counts["j37"] == 2)
    for job in Self.layeredJobs.map(\.name) where job != "j37" {
      #expect(counts[job] == 1, "\(job) ran \(counts[job] ?? 0) times")
    }
  }

  // MARK: A run killed

  /// `hold` and `docs` wait for `go`, which the test creates only after it killed the run.
  static let handshakeManifest = """
    max-concurrent: 4
    jobs:
      fetch: {command: echo fetch >> log}
      lint: {command: echo lint >> log}
      compile: {command: echo compile >> log, dependencies: [fetch]}
      hold:
        command: while [ ! -f go ]; do sleep 0.01; done; echo hold >> log
        dependencies: [compile]
      docs:
        command: while [ ! -f go ]; do sleep 0.01; done; echo docs >> log
        dependencies: [lint]
      test: {command: echo test >> log, dependencies: [hold]}
      package: {command: echo package >> log, dependencies: [test, docs]}
    """

  @Test func aRunKilledWithSigkillKeepsWhatFinishedAndResumeRunsTheRestOnce() throws {
    let folder = try Scratch()
    try folder.manifest(Self.handshakeManifest)
    // Its own runtime folder: the socket a killed run leaves behind goes with the scratch folder.
    let runtime = folder.path("runtime")
    try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
    let environment = ["XDG_RUNTIME_DIR": runtime]
    let finishedBefore = ["fetch", "lint", "compile"]

    let killed = try OprunProcess(runArguments(), in: folder, environment: environment)
    for job in finishedBefore { try folder.waitUntilFinished(job) }
    try folder.waitUntilExecuting("hold")
    try folder.waitUntilExecuting("docs")
    let killedRun = try #require(folder.events.named("run-started").first?.string("run"))
    killed.send(SIGKILL)
    try waitUntil("oprun dead") { !isAlive(killed.pid) }
    // Nothing watches the jobs of a killed run: end the two left waiting, by the groups the
    // events name. They hold what oprun inherited, so oprun's end is seen only after theirs.
    let groups = ["hold", "docs"].compactMap { folder.events.pids(of: $0).first }
    #expect(groups.count == 2)
    for group in groups { kill(-group, SIGKILL) }
    for group in groups { try waitUntil("group \(group) gone") { liveMembers(ofGroup: group).isEmpty } }
    #expect(killed.wait().signal == SIGKILL)

    let journal = try #require(folder.journal(of: killedRun))
    #expect(journal.first?.string("type") == "header")
    #expect(!journal.contains { $0.string("type") == "end" }, "a killed run has no end line")
    let recorded = journal.filter { $0.string("type") == "job" }
    #expect(Set(recorded.compactMap { $0.string("job") }) == Set(finishedBefore))
    #expect(recorded.allSatisfy { $0.string("outcome") == "succeeded" })

    folder.touch("go")
    let resumed = try runOprun(runArguments(["-r"]), in: folder, environment: environment)
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let log = folder.events
    expectStreamContract(log)
    for job in finishedBefore {
      #expect(log.finish(of: job)?["resumed"] as? Bool == true, "\(job)")
      #expect(!log.executed(job))
    }
    for job in ["hold", "docs", "test", "package"] {
      #expect(log.outcome(of: job) == "succeeded")
      #expect(log.executed(job))
    }
    #expect(humanLine(resumed.stdout, "ready", "hold") == "runs: no record of it in the last run")
    #expect(log.firstTransition(of: "hold")?.string("why") == "not-in-last-run")
    let counts = folder.runCounts
    for job in finishedBefore + ["hold", "docs", "test", "package"] {
      #expect(counts[job] == 1, "\(job) ran \(counts[job] ?? 0) times")
    }
  }

  // MARK: What changed

  static let graph = """
    jobs:
      a: {command: echo a >> log}
      b: {command: echo b >> log, dependencies: [a]}
      c: {command: echo c >> log, dependencies: [b]}
      d: {command: echo d >> log, dependencies: [c]}
      e: {command: echo e >> log}
      f: {command: echo f >> log, dependencies: [a, e]}
      g: {command: echo g >> log, dependencies: [b, e]}
    """

  @Test func aChangedCommandRunsItAndEverythingDownstreamAndNothingElse() throws {
    let folder = try Scratch()
    try folder.manifest(Self.graph)
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    try folder.manifest(Self.graph.replacingOccurrences(of: "echo b >> log", with: "echo b >> log; true"))
    let resumed = try runOprun(runArguments(["-r"]), in: folder)
    #expect(resumed.status == 0)

    #expect(folder.runCounts == ["a": 1, "b": 2, "c": 2, "d": 2, "e": 1, "f": 1, "g": 2])
    #expect(humanLine(resumed.stdout, "ready", "b") == "runs: command changed")
    #expect(humanLine(resumed.stdout, "ready", "c") == "runs: dependency b runs")
    #expect(humanLine(resumed.stdout, "ready", "d") == "runs: dependency c runs (because of b)")
    #expect(humanLine(resumed.stdout, "ready", "g") == "runs: dependency b runs")
    for job in ["a", "e", "f"] {
      #expect(humanLine(resumed.stdout, "ready", job) == "resumed", "\(job)")
      #expect(humanLine(resumed.stdout, "finished", job) == "succeeded (resumed)", "\(job)")
    }
    let log = folder.events
    #expect(log.firstTransition(of: "b")?.string("why") == "changed")
    #expect(log.firstTransition(of: "d")?.string("why") == "dependency-runs")
    expectStreamContract(log)
  }

  @Test func anAlwaysCleanupAfterAJobThatRunsAgainRunsAgain() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        build: {command: echo build >> log; test -f fixed}
        cleanup: {command: echo cleanup >> log, dependencies: [build], run-if: always}
        unrelated: {command: echo unrelated >> log}
      """)
    #expect(try runOprun(runArguments(["-k"]), in: folder).status == 1)
    #expect(folder.events.outcome(of: "cleanup") == "succeeded")
    folder.touch("fixed")
    let resumed = try runOprun(runArguments(["-r"]), in: folder)
    #expect(resumed.status == 0)
    #expect(folder.runCounts == ["build": 2, "cleanup": 2, "unrelated": 1])
    #expect(humanLine(resumed.stdout, "ready", "cleanup") == "runs: dependency build runs")
    #expect(folder.events.executed("cleanup"))

    // Nothing left to do: the cleanup is resumed with the build.
    #expect(try runOprun(runArguments(["-r"]), in: folder).status == 0)
    #expect(folder.runCounts == ["build": 2, "cleanup": 2, "unrelated": 1])
    #expect(folder.events.finish(of: "cleanup")?["resumed"] as? Bool == true)
  }

  @Test func aDryRunWithResumeNamesTheChangedJobAndWhatRunsBecauseOfItAndWritesNoJournal() throws {
    let folder = try Scratch()
    try folder.manifest(Self.graph)
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    try folder.manifest(Self.graph.replacingOccurrences(of: "echo b >> log", with: "echo B >> log"))
    let journals = folder.journalFiles
    #expect(journals.count == 1)

    let plan = try runOprun(["-n", "--resume", "jobs.yaml"], in: folder)
    #expect(plan.status == 0, "\(plan.stderr)")
    #expect(
      planReasons(plan.stdout) == [
        "a": "resumed",
        "b": "runs: command changed",
        "c": "runs: dependency b runs",
        "d": "runs: dependency c runs (because of b)",
        "e": "resumed",
        "f": "resumed",
        "g": "runs: dependency b runs",
      ], "\(plan.stdout)")
    #expect(plan.stdout.contains("3 resumed, 4 to run"), "\(plan.stdout)")
    #expect(try runOprun(["-n", "jobs.yaml"], in: folder).status == 0)

    #expect(folder.journalFiles == journals)
    #expect(folder.runCounts.values.allSatisfy { $0 == 1 }, "a dry run runs nothing")
  }

  // MARK: Damaged journals

  /// What is done to the journal of a run of `a`, `b`, `c`, `d` before `--resume` reads it,
  /// and which jobs must run again.
  enum JournalDamage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The end line gone and the last job's line cut in the middle, as a run killed while
    /// writing would leave it.
    case lastJobLineCut
    /// The end line cut in the middle.
    case endLineCut
    /// Binary junk after the end line, with a newline in it and none at its end.
    case junkAppended
    /// Binary junk written over the middle of `b`'s line.
    case junkOverALine
    /// A line of binary junk between two lines.
    case junkLineInserted
    /// A line of a type this oprun does not know, as a newer oprun might write.
    case unknownLineType
    /// A header declaring journal format 99.
    case newerFormat

    var testDescription: String { rawValue }

    static let junk: [UInt8] = [0x00, 0xFF, 0xFE, 0x80, 0x1B, 0x5B, 0x30, 0x6D, 0xC3, 0x28, 0x7B, 0x22, 0x00]

    /// `lines` without their newlines; returns the jobs whose records this loses.
    func apply(to lines: inout [[UInt8]], jobs: [String]) -> Set<String> {
      let last = lines.count - 1
      func line(of job: String) -> Int { lines.firstIndex { $0.contains(Array("\"job\":\"\(job)\"".utf8)) }! }
      switch self {
      case .lastJobLineCut:
        lines.removeLast()
        let cut = lines.removeLast()
        let job = jobs.first { cut.contains(Array("\"job\":\"\($0)\"".utf8)) }!
        lines.append(Array(cut.prefix(cut.count / 2)))
        return [job]
      case .endLineCut:
        lines[last] = Array(lines[last].prefix(lines[last].count / 2))
        return []
      case .junkAppended:
        lines.append(Self.junk + [UInt8(ascii: "\n")] + Self.junk)
        return []
      case .junkOverALine:
        let index = line(of: "b")
        let middle = lines[index].count / 2
        lines[index].replaceSubrange(middle..<middle + Self.junk.count, with: Self.junk)
        return ["b"]
      case .junkLineInserted:
        lines.insert(Self.junk, at: 2)
        return []
      case .unknownLineType:
        lines.insert(Array(#"{"type":"artifact","job":"b","path":"out/b.bin","bytes":1024}"#.utf8), at: line(of: "b"))
        return []
      case .newerFormat:
        let header = String(decoding: lines[0], as: UTF8.self)
        lines[0] = Array(header.replacingOccurrences(of: #""format":1"#, with: #""format":99"#).utf8)
        return Set(jobs)
      }
    }

    /// Whether the damaged journal ends without a newline (else it ends as written).
    var endsMidLine: Bool { [.lastJobLineCut, .endLineCut, .junkAppended].contains(self) }
  }

  @Test(arguments: JournalDamage.allCases)
  func aDamagedJournalGivesOneWarningAndTheJobsItLostRunAgain(_ damage: JournalDamage) throws {
    let folder = try Scratch()
    let jobs = ["a", "b", "c", "d"]
    try folder.manifest("max-concurrent: 1\njobs:\n" + jobs.map { "  \($0): {command: echo \($0) >> log}\n" }.joined())
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    let file = try #require(folder.journalFiles.first)
    let text = try Data(contentsOf: URL(fileURLWithPath: file))
    var lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map(Array.init)
    #expect(lines.count == 6, "a header, four jobs and an end")
    let lost = damage.apply(to: &lines, jobs: jobs)
    if damage == .newerFormat { #expect(lines[0] != Array(text.prefix { $0 != UInt8(ascii: "\n") })) }
    var damaged = lines.map { $0 + [UInt8(ascii: "\n")] }.joined().map { $0 }
    if damage.endsMidLine { damaged.removeLast() }
    try Data(damaged).write(to: URL(fileURLWithPath: file))

    let resumed = try runOprun(runArguments(["--resume"]), in: folder)
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(resumed.signal == nil)
    let warnings = resumed.stderr.split(separator: "\n").filter { $0.hasPrefix("oprun: warning: ") }
    #expect(warnings.count == 1, "\(resumed.stderr)")
    #expect(warnings.first?.contains(file.split(separator: "/").last!) == true, "\(resumed.stderr)")
    #expect(resumed.stderr.split(separator: "\n").count == warnings.count, "nothing else: \(resumed.stderr)")
    let log = folder.events
    expectStreamContract(log)
    for job in jobs {
      #expect(log.outcome(of: job) == "succeeded", "\(job)")
      #expect(log.executed(job) == lost.contains(job), "\(job)")
      #expect((log.finish(of: job)?["resumed"] as? Bool ?? false) == !lost.contains(job), "\(job)")
      #expect(folder.runCounts[job] == (lost.contains(job) ? 2 : 1), "\(job)")
    }
  }

  // MARK: No journal

  @Test func noJournalWritesNothingAndALaterResumeSaysSoInOneLineAndRunsEverything() throws {
    let folder = try Scratch()
    try folder.manifest(Self.graph)
    #expect(try runOprun(runArguments(["--no-journal"]), in: folder).status == 0)
    #expect(!folder.exists(".oprun"))

    let resumed = try runOprun(runArguments(["--resume"]), in: folder)
    #expect(resumed.status == 0)
    let lines = resumed.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(resumed.stderr)")
    #expect(lines.first?.hasPrefix("oprun: warning: ") == true)
    #expect(lines.first?.contains("no journal") == true, "\(resumed.stderr)")
    #expect(folder.runCounts.values.allSatisfy { $0 == 2 }, "\(folder.runCounts)")
    #expect(folder.runCounts.count == 7)
    for job in ["a", "d", "g"] {
      #expect(humanLine(resumed.stdout, "ready", job) == "runs: no journal of an earlier run", "\(job)")
      #expect(folder.events.firstTransition(of: job)?.string("why") == "no-journal")
    }
  }

  @Test func aFolderWhereNoJournalCanBeWrittenGivesOneWarningAndTheRunGoesOn() throws {
    let folder = try Scratch()
    try folder.manifest(Self.graph)
    // A file where `.oprun/` should be: no directory can be made there, whoever runs oprun.
    try folder.write(".oprun", "not a folder\n")
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0)
    let lines = run.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(run.stderr)")
    #expect(lines.first?.hasPrefix("oprun: warning: ") == true, "\(run.stderr)")
    #expect(folder.runCounts.count == 7)
    #expect(folder.runCounts.values.allSatisfy { $0 == 1 })
    #expect(folder.read(".oprun") == "not a folder\n")
    expectStreamContract(folder.events)
    #expect(folder.events.finishedExitCode == 0)
  }

  // MARK: Environment

  @Test func aManifestEnvChangeRunsTheJobAgainAndAnExportedVariableDoesNot() throws {
    let folder = try Scratch()
    let manifest = """
      env: {MODE: fast}
      jobs:
        a: {command: echo a >> log}
        b: {command: echo b >> log, env: {LEVEL: "1"}}
        c: {command: echo c >> log, dependencies: [b]}
      """
    try folder.manifest(manifest)
    #expect(try runOprun(runArguments(), in: folder, environment: ["RESUME_TEST_EXPORTED": "one"]).status == 0)

    let exported = try runOprun(
      runArguments(["-r"]), in: folder, environment: ["RESUME_TEST_EXPORTED": "two", "CC": "clang-99"])
    #expect(exported.status == 0)
    #expect(folder.runCounts == ["a": 1, "b": 1, "c": 1])
    for job in ["a", "b", "c"] { #expect(humanLine(exported.stdout, "ready", job) == "resumed", "\(job)") }

    try folder.manifest(manifest.replacingOccurrences(of: #"LEVEL: "1""#, with: #"LEVEL: "2""#))
    let changed = try runOprun(runArguments(["-r"]), in: folder)
    #expect(changed.status == 0)
    #expect(folder.runCounts == ["a": 1, "b": 2, "c": 2])
    #expect(humanLine(changed.stdout, "ready", "b") == "runs: env changed")
    #expect(humanLine(changed.stdout, "ready", "c") == "runs: dependency b runs")
    #expect(humanLine(changed.stdout, "ready", "a") == "resumed")

    try folder.manifest(
      manifest.replacingOccurrences(of: #"LEVEL: "1""#, with: #"LEVEL: "2""#).replacingOccurrences(
        of: "MODE: fast", with: "MODE: slow"))
    let everywhere = try runOprun(runArguments(["-r"]), in: folder)
    #expect(everywhere.status == 0)
    #expect(folder.runCounts == ["a": 2, "b": 3, "c": 3])
    #expect(humanLine(everywhere.stdout, "ready", "a") == "runs: env changed")
  }

  // MARK: Targets and the event stream

  @Test func resumeWithTargetsMarksResumedFinishesAndSaysWhyOnFirstTransitions() throws {
    let folder = try Scratch()
    try folder.manifest(Self.graph)
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    try folder.manifest(Self.graph.replacingOccurrences(of: "echo e >> log", with: "echo e >> log; true"))

    let run = try runOprun(["-r", "jobs.yaml", "f", "c", "--events", eventsFile], in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    expectStreamContract(log)
    #expect(log.announcedJobCount == 5)
    #expect(Set(log.finishedCounts.keys) == ["a", "b", "c", "e", "f"])
    let resumed: Set<String> = ["a", "b", "c"]
    for job in ["a", "b", "c", "e", "f"] {
      let finishes = log.transitions(of: job, to: "finished")
      #expect(finishes.count == 1, "\(job)")
      #expect(finishes.first?.string("outcome") == "succeeded")
      if resumed.contains(job) {
        #expect(finishes.first?["resumed"] as? Bool == true, "\(job)")
        #expect(!log.executed(job))
      } else {
        #expect(finishes.first?["resumed"] == nil, "\(job)")
        #expect(log.executed(job))
      }
      let first = try #require(log.firstTransition(of: job))
      #expect(first.string("from") == "pending")
      #expect(first.string("why") != nil && first.string("reason") != nil, "\(job)")
      for later in log.named("transition", job: job).dropFirst() {
        #expect(later["why"] == nil && later["reason"] == nil, "\(job) \(later)")
      }
    }
    #expect(log.firstTransition(of: "a")?.string("why") == "resumed")
    #expect(log.firstTransition(of: "e")?.string("why") == "changed")
    #expect(log.firstTransition(of: "e")?.string("reason") == "command changed")
    #expect(log.firstTransition(of: "f")?.string("why") == "dependency-runs")
    #expect(log.firstTransition(of: "f")?.string("reason") == "dependency e runs")
    #expect(folder.runCounts == ["a": 1, "b": 1, "c": 1, "d": 1, "e": 2, "f": 2, "g": 1])
  }

  /// A run given targets ran `e` again, changed; `g`, below `e` but not selected, kept its
  /// record from the run before, made against the old `e`.
  @Test func aJobLeftOutOfATargetedRunRunsLaterAndSaysWhichDependencyChanged() throws {
    let folder = try Scratch()
    try folder.manifest(Self.graph)
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    try folder.manifest(Self.graph.replacingOccurrences(of: "echo e >> log", with: "echo e >> log; true"))
    #expect(try runOprun(["-r", "jobs.yaml", "f"], in: folder).status == 0)
    #expect(folder.runCounts == ["a": 1, "b": 1, "c": 1, "d": 1, "e": 2, "f": 2, "g": 1])

    let rest = try runOprun(runArguments(["-r"]), in: folder)
    #expect(rest.status == 0)
    #expect(folder.runCounts == ["a": 1, "b": 1, "c": 1, "d": 1, "e": 2, "f": 2, "g": 2])
    for job in ["a", "b", "c", "d", "e", "f"] { #expect(humanLine(rest.stdout, "ready", job) == "resumed", "\(job)") }
    // Its own command, env, cwd, timeout and dependency names are as they were: what changed
    // is dependency e, and the reason says so.
    let reason = try #require(humanLine(rest.stdout, "ready", "g"))
    #expect(reason.hasPrefix("runs: ") && reason.contains("dependency e"), "\(reason)")
  }

  // MARK: Completions

  @Test func resumedJobsDoNotRunTheirCompletion() throws {
    let folder = try Scratch()
    let manifest = """
      jobs:
        a: {command: echo a >> log, completion: echo a-completion >> log}
        b: {command: echo b >> log, dependencies: [a], completion: echo b-completion >> log}
        c: {command: echo c >> log, completion: echo c-completion >> log}
      """
    try folder.manifest(manifest)
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    try folder.manifest(manifest.replacingOccurrences(of: "echo c >> log", with: "echo c >> log; true"))
    let resumed = try runOprun(runArguments(["-r"]), in: folder)
    #expect(resumed.status == 0)
    #expect(
      folder.runCounts == ["a": 1, "a-completion": 1, "b": 1, "b-completion": 1, "c": 2, "c-completion": 2])
    let log = folder.events
    #expect(log.named("completion").compactMap { $0.string("job") } == ["c"])
    #expect(log.named("completion-started").compactMap { $0.string("job") } == ["c"])
  }

  // MARK: History

  @Test func theLastTwentyRunsOfAManifestAreKeptAndAnotherManifestsAreUntouched() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  a: {command: echo a >> log}\n")
    try folder.manifest("jobs:\n  x: {command: echo x >> log}\n", name: "other.yaml")
    func run(_ manifest: String) throws -> String {
      #expect(try runOprun(runArguments(manifest: manifest), in: folder).status == 0)
      return try #require(folder.events.named("run-started").first?.string("run"))
    }
    let others = try (1...2).map { _ in try run("other.yaml") }
    let runs = try (1...22).map { _ in try run("jobs.yaml") }
    #expect(Set(runs).count == 22)

    let kept = Set(folder.journalFiles.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
    let keptRuns = runs.indices.filter { kept.contains(runs[$0]) }.map { $0 + 1 }
    #expect(keptRuns == Array(3...22), "runs of jobs.yaml whose journal is kept, by number")
    #expect(kept.isSuperset(of: others), "other.yaml's journals")
    #expect(kept.count == 22)
  }
}

// MARK: - Reading what runs leave

extension Scratch {
  /// How many lines of `log` hold each text: for most jobs, how many times it ran.
  var runCounts: [String: Int] {
    var counts: [String: Int] = [:]
    for line in (read("log") ?? "").split(separator: "\n") { counts[String(line), default: 0] += 1 }
    return counts
  }

  /// The journals in `.oprun/runs/`, as paths, sorted.
  var journalFiles: [String] {
    let folder = path(".oprun/runs")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { $0.hasSuffix(".ndjson") }.sorted().map { folder + "/" + $0 }
  }

  /// The lines of run `id`'s journal that are JSON objects; nil when there is no such journal.
  func journal(of id: String) -> [[String: Any]]? {
    guard let text = read(".oprun/runs/\(id).ndjson") else { return nil }
    return text.split(separator: "\n").compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
  }
}

extension EventLog {
  /// `job`'s first transition: the one from pending.
  func firstTransition(of job: String) -> [String: Any]? { named("transition", job: job).first }
}

/// What follows the job's name on the first human line `TIME STATE JOB …` for `state` and `job`.
private func humanLine(_ output: String, _ state: String, _ job: String) -> String? {
  for line in output.split(separator: "\n") {
    let words = line.split(separator: " ")
    if words.count >= 3, words[1] == state, words[2] == job { return words.dropFirst(3).joined(separator: " ") }
  }
  return nil
}

/// The plan of `-n`: each job's `resumed` or `runs: …`, by name.
private func planReasons(_ output: String) -> [String: String] {
  var reasons: [String: String] = [:]
  for line in output.split(separator: "\n") {
    guard let match = line.wholeMatch(of: /\s+\d+\. (\S+)\s+(.*)/) else { continue }
    reasons[String(match.1)] = String(match.2)
  }
  return reasons
}

/// Every job that depends on `job`, directly or not.
private func downstream(of job: String, in jobs: [(name: String, dependencies: [String])]) -> Set<String> {
  var found: Set<String> = []
  var frontier = [job]
  while let next = frontier.popLast() {
    for candidate in jobs where candidate.dependencies.contains(next) && !found.contains(candidate.name) {
      found.insert(candidate.name)
      frontier.append(candidate.name)
    }
  }
  return found
}
