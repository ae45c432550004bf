import Foundation
import Testing

/// What jobs declare they need, against the run's budget (SPEC §12), as a user sees it in
/// the event stream, in the jobs' environment and in the manifest's errors.
@Suite struct ResourceBudgetTests {
  /// Jobs of 1 to 4 CPUs under a budget of 4: `one` and `three` wait for each other, so the
  /// run must hold 4 CPUs at once, and never more.
  @Test func cpusInUseReachTheBudgetAndNeverPassIt() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 8
      budget: {cpus: 4}
      jobs:
        one: {command: "touch one-started; \(awaitFile("three-started"))", resources: {cpus: 1}}
        three: {command: "touch three-started; \(awaitFile("one-started"))", resources: {cpus: 3}}
        two: {command: "true", resources: {cpus: 2}}
        four: {command: "true", resources: {cpus: 4}}
        another-two: {command: "true", resources: {cpus: 2}}
        free: {command: "true"}
      """)
    let run = try runOprun(runArguments(), in: folder)

    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    expectStreamContract(log)
    let needs = ["one": 1, "three": 3, "two": 2, "four": 4, "another-two": 2, "free": 0]
    #expect(log.mostCPUsInUse(needs: needs) == 4)
  }

  /// `big` is refused while `gate` runs; `small`, listed after it, would fit, but waits:
  /// the CPUs `gate` releases go to `big` first.
  @Test func aWaitingBigJobIsNotPassedByASmallerJobListedAfterIt() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 8
      budget: {cpus: 4}
      jobs:
        gate: {command: "\(awaitFile("go"))", resources: {cpus: 2}}
        big: {command: "true", resources: {cpus: 4}}
        small: {command: "true", resources: {cpus: 1}}
      """)
    let process = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilExecuting("gate")
    folder.touch("go")
    let run = process.wait()

    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    expectStreamContract(log)
    #expect(log.order(of: "executing") == ["gate", "big", "small"])
    let gateFinished = try #require(log.index(of: "gate", to: "finished"))
    #expect(try #require(log.index(of: "small", to: "executing")) > gateFinished)
  }

  @Test func everyJobGetsItsCPUsAndDeclaredMemoryInItsEnvironment() throws {
    // A budget of its own: what this machine gives oprun may be fewer than 3 CPUs.
    let folder = try Scratch()
    try folder.manifest(
      """
      budget: {cpus: 4}
      defaults: {resources: {cpus: 2}}
      jobs:
        declared: {command: 'echo "$OPRUN_CPUS $OPRUN_MEMORY" > declared.txt', resources: {cpus: 3, memory: 1.5G}}
        defaulted: {command: 'echo "$OPRUN_CPUS ${OPRUN_MEMORY-none}" > defaulted.txt'}
      """)
    try folder.manifest(
      """
      jobs:
        plain: {command: 'echo "$OPRUN_CPUS ${OPRUN_MEMORY-none}" > plain.txt'}
      """, name: "plain.yaml")
    let run = try runOprun(runArguments(), in: folder)
    let plain = try runOprun(["plain.yaml"], in: folder)

    #expect(run.status == 0, "\(run.stderr)")
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(folder.read("declared.txt") == "3 1610612736\n")
    #expect(folder.read("defaulted.txt") == "2 none\n")
    #expect(folder.read("plain.txt") == "1 none\n")
  }

  /// The manifest allows 4 CPUs; `--budget cpus=2` lets one of the two 2-CPU jobs run at a time.
  @Test func budgetOnTheCommandLineOverridesTheManifests() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 8
      budget: {cpus: 4, memory: 1G}
      jobs:
        a: {command: "true", resources: {cpus: 2}}
        b: {command: "true", resources: {cpus: 2}}
      """)
    let run = try runOprun(runArguments(["--budget", "cpus=2"]), in: folder)

    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    #expect(log.mostCPUsInUse(needs: ["a": 2, "b": 2]) == 2)
    #expect(try #require(log.index(of: "b", to: "executing")) > #require(log.index(of: "a", to: "finished")))
  }

  @Test func aBudgetOnTheCommandLineThatAJobCouldNeverFitInIsRefusedAtTheNeed() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        wide:
          command: touch ran
          resources: {cpus: 3, memory: 2G}
      """)
    let run = try runOprun(runArguments(["--budget", "cpus=2,memory=1G"]), in: folder)

    #expect(run.status == 2)
    #expect(run.stderr.contains("jobs.yaml:4:23: error: job 'wide' needs 3 CPUs, more than --budget of 2 CPUs"))
    #expect(run.stderr.contains("jobs.yaml:4:34: error: job 'wide' needs 2.0 GB of memory, more than --budget of 1.0 GB"))
    #expect(!folder.exists("ran"))
    let malformed = try runOprun(runArguments(["--budget", "cpus=2,memory=2 GB"]), in: folder)
    #expect(malformed.status == 2)
    #expect(malformed.stderr.contains("memory must be a size like 512M, 2G, 1.5G or a number of bytes, found '2 GB'"))
  }

  @Test func badResourcesAndNeedsBeyondTheBudgetAreReportedAtTheValue() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      budget: {cpus: 2}
      jobs:
        a:
          command: x
          resources:
            memory: 2 GB
        b:
          command: x
          resources:
            cpus: 0.5
        c:
          command: x
          resources:
            cpus: 4
        d:
          command: x
          resources:
            memroy: 1G
      """)
    let check = try runOprun(["check", "jobs.yaml"], in: folder)

    #expect(check.status == 2)
    for line in [
      "jobs.yaml:6:15: error: memory must be a size like 512M, 2G, 1.5G or a number of bytes, found '2 GB'",
      "jobs.yaml:10:13: error: cpus must be a positive whole number like 1, 2 or 8, found '0.5'",
      "jobs.yaml:14:13: error: job 'c' needs 4 CPUs, more than the budget of 2 CPUs: it could never start",
      "jobs.yaml:18:7: error: unknown key 'memroy' in 'resources' of job 'd' (did you mean 'memory'?)",
    ] {
      #expect(check.stderr.contains(line), "missing: \(line)\n\(check.stderr)")
    }
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 2)
    #expect(run.stderr.contains("jobs.yaml:14:13: error: job 'c' needs 4 CPUs"))
  }

  /// `ctl budget` while `wide`'s 2 CPUs wait: raising the budget starts it now; a budget it
  /// could never fit in is refused, naming it.
  @Test func raisingTheBudgetLiveStartsAWaitingJob() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 4
      budget: {cpus: 2}
      jobs:
        gate: {command: "\(awaitFile("go"))", resources: {cpus: 2}}
        wide: {command: "touch wide-ran", resources: {cpus: 2}}
      """)
    let run = try scene.startRun()
    defer {
      scene.folder.touch("go")
      _ = run.process.wait()
    }
    try waitUntil("gate executing") { run.log.executed("gate") }
    let refused = try scene.ctl(["budget", "cpus=1"])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("job 'gate' needs 2 CPUs"), "\(refused.stderr)")
    try scene.steer(["budget", "cpus=4"])
    try waitUntil("wide executing") { run.log.executed("wide") }
    #expect(run.log.finish(of: "gate") == nil)
    scene.folder.touch("go")
    let finished = run.process.wait()

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    let budget = try #require(log.index { $0.string("event") == "budget" })
    #expect(log.named("budget").first?.int("cpus") == 4)
    #expect(log.named("budget").first?.int("memory") != nil)
    #expect(try #require(log.index(of: "wide", to: "executing")) > budget)
    #expect(log.mostCPUsInUse(needs: ["gate": 2, "wide": 2]) == 4)
    #expect(finished.stdout.contains("budget"))
  }
}

/// A shell loop that waits until the file `name` exists in the job's folder; a job still
/// waiting after a minute fails rather than hanging the suite.
private func awaitFile(_ name: String) -> String {
  "i=0; while [ ! -e \(name) ]; do i=$((i + 1)); [ $i -lt 3000 ] || exit 1; sleep 0.02; done"
}

extension EventLog {
  /// The most CPUs jobs executing at once needed, replaying the stream; `needs` by job name.
  func mostCPUsInUse(needs: [String: Int]) -> Int {
    var inUse = 0
    var most = 0
    for event in named("transition") {
      let need = needs[event.string("job") ?? ""] ?? 0
      if event.string("to") == "executing" {
        inUse += need
      } else if event.string("from") == "executing" {
        inUse -= need
      }
      most = max(most, inUse)
    }
    return most
  }
}
