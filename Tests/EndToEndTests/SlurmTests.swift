import Foundation
import Testing

/// `--backend slurm` on a real cluster (`make test-slurm` brings one up on localhost and sets
/// `OPRUN_SLURM=1`; without it these tests are skipped): the same manifest gives the same
/// outcomes, order and events as a local run, and nothing of a run stays queued.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["OPRUN_SLURM"] == "1"))
struct SlurmTests {
  @Test func dependenciesAndRunIfGiveTheOutcomesOfALocalRun() throws {
    let manifest = """
      jobs:
        build: {command: echo built}
        broken: {command: exit 3}
        test: {command: echo tested, dependencies: [build]}
        after-broken: {command: echo never, dependencies: [broken]}
        after-skipped: {command: echo never, dependencies: [after-broken]}
        cleanup: {command: echo cleaned, dependencies: [broken, test], run-if: always}
        on-failure: {command: echo reported, dependencies: [broken], run-if: failure}
        not-on-success: {command: echo never, dependencies: [build], run-if: failure}
        both: {commands: [echo one, echo two]}
      """
    let (local, cluster, clusterRun) = try runLocallyAndOnTheCluster(manifest)
    #expect(clusterRun.status == 1)
    let expected = [
      "build": "succeeded", "broken": "failed", "test": "succeeded", "after-broken": "skipped",
      "after-skipped": "skipped", "cleanup": "succeeded", "on-failure": "succeeded", "not-on-success": "skipped",
      "both": "succeeded",
    ]
    for log in [local.events, cluster.events] {
      expectStreamContract(log)
      for (job, outcome) in expected { #expect(log.outcome(of: job) == outcome, "\(job)") }
      #expect(log.finish(of: "broken")?.int("exit_code") == 3)
      for (job, dependency) in [("test", "build"), ("cleanup", "broken"), ("cleanup", "test")] {
        let ready = try #require(log.index(of: job, to: "ready"))
        let finished = try #require(log.index(of: dependency, to: "finished"))
        #expect(finished < ready, "\(job) went ready before \(dependency) finished")
      }
    }
    #expect(clusterRun.stdout.contains("build | built"))
    #expect(clusterRun.stdout.contains("both | one") && clusterRun.stdout.contains("both | two"))
    #expect(!clusterRun.stdout.contains("never"))
    #expect(try runQueued(cluster.events).isEmpty)
  }

  @Test func aFailedJobIsSubmittedAgainAndItsDependentsWaitForItsLastAttempt() throws {
    let manifest = """
      jobs:
        flaky:
          command: echo "$OPRUN_ATTEMPT" >> flaky.attempts; [ "$OPRUN_ATTEMPT" -ge 2 ]
          retries: 2
        after: {command: cat flaky.attempts > after.saw, dependencies: [flaky]}
        hopeless: {command: 'echo "$OPRUN_ATTEMPT" >> hopeless.attempts; exit 9', retries: 1}
        after-hopeless: {command: touch after-hopeless.ran, dependencies: [hopeless]}
        cleanup: {command: cat hopeless.attempts > cleanup.saw, dependencies: [hopeless], run-if: always}
      """
    let (local, cluster, clusterRun) = try runLocallyAndOnTheCluster(manifest)
    #expect(clusterRun.status == 1)
    #expect(!clusterRun.stderr.contains("retr"), "\(clusterRun.stderr)")
    for folder in [local, cluster] {
      // The dependents started after the last attempt, and only after one that succeeded.
      #expect(folder.read("flaky.attempts") == "1\n2\n")
      #expect(folder.read("after.saw") == "1\n2\n")
      #expect(folder.read("hopeless.attempts") == "1\n2\n")
      #expect(folder.read("cleanup.saw") == "1\n2\n")
      #expect(!folder.exists("after-hopeless.ran"))
      let log = folder.events
      expectStreamContract(log)
      let expected = [
        "flaky": "succeeded", "after": "succeeded", "hopeless": "failed", "after-hopeless": "skipped",
        "cleanup": "succeeded",
      ]
      for (job, outcome) in expected { #expect(log.outcome(of: job) == outcome, "\(job)") }
      #expect(log.transitions(of: "flaky", to: "executing").map { $0.int("attempt") } == [1, 2])
      let retry = log.named("transition", job: "flaky").first {
        $0.string("from") == "executing" && $0.string("to") == "ready"
      }
      #expect(retry?.int("exit_code") == 1)
      #expect(log.finish(of: "flaky")?.int("attempt") == 2)
      #expect(log.finish(of: "hopeless")?.int("exit_code") == 9)
      #expect(log.finish(of: "hopeless")?.int("attempt") == 2)
      let ready = try #require(log.index(of: "after", to: "ready"))
      let finished = try #require(log.index(of: "flaky", to: "finished"))
      #expect(finished < ready)
    }
    let clusterLog = cluster.events
    let attempts = clusterLog.transitions(of: "flaky", to: "executing").map { $0["pids"] as? [Any] ?? [] }
    #expect(attempts.count == 2 && "\(attempts[0])" != "\(attempts[1])", "each attempt is a cluster job of its own")
    #expect(try runQueued(clusterLog).isEmpty)
  }

  @Test func resumeSubmitsOnlyWhatDidNotSucceedUnchanged() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        build: {command: echo built >> build.log}
        test: {command: test -e fixed, dependencies: [build]}
      """)
    #expect(try runOprun(runArguments(["--backend", "slurm"]), in: folder).status == 1)
    _ = try folder.write("fixed", "")
    let run = try runOprun(runArguments(["--backend", "slurm", "--resume"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    #expect(log.finish(of: "build")?["resumed"] as? Bool == true)
    #expect(log.outcome(of: "test") == "succeeded")
    #expect(folder.read("build.log") == "built\n")
    let runID = try #require(log.named("run-started").first?.string("run"))
    #expect(try squeue(["--noheader", "--states=all", "--name=oprun:\(runID):build", "--format=%i"]).isEmpty)
    expectStreamContract(log)
  }

  @Test func priorityBandsOrderStartsWhenOneJobRunsAtATime() throws {
    // Listed lowest first: only the band can put them in the expected order.
    let manifest = """
      jobs:
        first: {command: 'echo first >> order', priority: veryHigh}
        low: {command: 'echo low >> order', priority: low}
        normal: {command: 'echo normal >> order'}
        high: {command: 'echo high >> order', priority: high}
      """
    let local = try Scratch()
    try local.manifest(manifest)
    #expect(try runOprun(runArguments(["-j", "1"]), in: local).status == 0)
    let cluster = try Scratch()
    try cluster.manifest(manifest)
    // --exclusive: each job takes the whole node, so they run one at a time.
    let run = try runOprun(runArguments(["--backend", "slurm", "--slurm-arg=--exclusive"]), in: cluster)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(local.read("order") == "first\nhigh\nnormal\nlow\n")
    #expect(cluster.read("order") == local.read("order"))
    expectStreamContract(cluster.events)
  }

  @Test func aJobPastItsTimeoutIsTimedOutAndItsDependentsSkipped() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        slow: {command: sleep 300, timeout: 1s}
        after: {command: echo never, dependencies: [slow]}
      """)
    let run = try runOprun(runArguments(["--backend", "slurm"]), in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    let log = folder.events
    #expect(log.outcome(of: "slow") == "timed-out")
    #expect(log.cancelReason(of: "slow") == "timeout")
    #expect(log.outcome(of: "after") != "succeeded")
    expectStreamContract(log)
    #expect(try runQueued(log).isEmpty)
  }

  @Test func interruptCancelsEveryJobOfTheRunOnTheCluster() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        long: {command: sleep 300, completion: 'echo $OPRUN_JOB_STATUS > long.completion'}
        waiting: {command: echo never, dependencies: [long]}
        also-long: {command: sleep 300}
      """)
    let process = try OprunProcess(runArguments(["--backend", "slurm"]), in: folder)
    try waitUntil("both long jobs executing") {
      folder.events.executed("long") && folder.events.executed("also-long")
    }
    process.send(SIGINT)
    let run = process.wait()
    #expect(run.signal == SIGINT, "\(run.stderr)")
    let log = folder.events
    for job in ["long", "waiting", "also-long"] { #expect(log.outcome(of: job) == "cancelled", "\(job)") }
    #expect(log.cancelReason(of: "long") == "interrupt")
    #expect(folder.read("long.completion") == "cancelled\n")
    expectStreamContract(log)
    #expect(try runQueued(log).isEmpty)
  }

  @Test func controlCancelCancelsThatJobAloneOnTheCluster() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        long: {command: sleep 300}
        after: {command: echo cleaned, dependencies: [long], run-if: always}
        other: {command: sleep 1}
      """)
    let run = try scene.startRun(manifest: "jobs.yaml", events: eventsFile, ["--backend", "slurm"])
    try waitUntil("long executing") { run.log.executed("long") }
    let answer = try scene.ctl(["--pid", String(run.pid), "cancel", "long"])
    #expect(answer.status == 0, "\(answer.stderr)")
    let finished = run.process.wait()
    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    #expect(log.outcome(of: "long") == "cancelled")
    #expect(log.cancelReason(of: "long") == "control")
    #expect(log.outcome(of: "after") == "succeeded")
    #expect(log.outcome(of: "other") == "succeeded")
    expectStreamContract(log)
    #expect(try runQueued(log).isEmpty)
  }

  @Test func ctlSuspendHoldsWhatHasNotBegunOnTheClusterAndResumeReleasesIt() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        first: {command: sleep 300}
        second: {command: touch second.ran, dependencies: [first], run-if: always}
      """)
    let run = try scene.startRun(manifest: "jobs.yaml", events: eventsFile, ["--backend", "slurm"])
    try waitUntil("first executing") { run.log.executed("first") }
    #expect(try scene.ctl(["--pid", String(run.pid), "suspend"]).status == 0)
    #expect(try scene.ctl(["--pid", String(run.pid), "cancel", "first"]).status == 0)
    try waitUntil("first finished") { run.log.finish(of: "first") != nil }
    // Its dependency has ended, but the hold keeps it from starting.
    let runID = try #require(run.log.named("run-started").first?.string("run"))
    let held = try squeue(["--noheader", "--states=all", "--name=oprun:\(runID):second", "--format=%T %r"])
    #expect(held.hasPrefix("PENDING JobHeld"), "\(held)")
    #expect(try scene.ctl(["--pid", String(run.pid), "resume"]).status == 0)
    let finished = run.process.wait()
    #expect(finished.status == 1, "\(finished.stderr)")
    #expect(run.log.outcome(of: "second") == "succeeded")
    #expect(scene.folder.exists("second.ran"))
    expectStreamContract(run.log)
  }

  @Test func aMatrixJobsInstancesGoAsOneArrayWithTheEventsOfALocalRun() throws {
    let manifest = """
      jobs:
        folders: {command: mkdir -p in-a in-b in-c in-d}
        check:
          matrix: {dir: [a, b, c, d]}
          cwd: in-${{ matrix.dir }}
          env: {WHICH: "${{ matrix.dir }}"}
          command: echo "$OPRUN_JOB $WHICH $(basename "$PWD")"; [ "$WHICH" != c ] || exit 5
          dependencies: [folders]
        after: {command: echo after, dependencies: [check]}
        after-any: {command: echo after-any, dependencies: [check], run-if: always}
      """
    let (local, cluster, clusterRun) = try runLocallyAndOnTheCluster(manifest)
    #expect(clusterRun.status == 1)
    let instances = ["check[a]", "check[b]", "check[c]", "check[d]"]
    for job in instances + ["folders", "after", "after-any"] {
      #expect(history(of: job, in: cluster.events) == history(of: job, in: local.events), "\(job)")
      #expect(outputLines(of: job, in: cluster.events) == outputLines(of: job, in: local.events), "\(job)")
    }
    #expect(outputLines(of: "check[b]", in: cluster.events) == ["check[b] b in-b\n"])
    #expect(cluster.events.finish(of: "check[c]")?.int("exit_code") == 5)
    #expect(cluster.events.outcome(of: "after") == "skipped")
    #expect(cluster.events.outcome(of: "after-any") == "succeeded")
    let pids = instances.map { cluster.events.pids(of: $0) }
    #expect(Set(pids.map { "\($0)" }).count == 4, "each task has its own id: \(pids)")
    // One submission: every instance is a task of the same job array.
    let runID = try #require(cluster.events.named("run-started").first?.string("run"))
    let tasks = try squeue(["--noheader", "--array", "--states=all", "--name=oprun:\(runID):check", "--format=%F %K"])
      .split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
    #expect(tasks.count == 4 && Set(tasks.map { $0[0] }).count == 1, "\(tasks)")
    #expect(Set(tasks.map { $0[1] }) == ["0", "1", "2", "3"])
    expectStreamContract(cluster.events)
    #expect(try runQueued(cluster.events).isEmpty)
  }

  @Test func ctlCancelOfOneInstanceCancelsThatTaskAloneAndTheOthersSucceed() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      jobs:
        work:
          matrix: {n: ["1", "2", "3"]}
          command: >-
            if [ ${{ matrix.n }} = 2 ]; then sleep 300; fi;
            i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; test -e go
      """)
    let run = try scene.startRun(manifest: "jobs.yaml", events: eventsFile, ["--backend", "slurm"])
    try waitUntil("every instance executing") {
      ["work[1]", "work[2]", "work[3]"].allSatisfy { run.log.executed($0) }
    }
    let answer = try scene.ctl(["--pid", String(run.pid), "cancel", "work[2]"])
    #expect(answer.status == 0, "\(answer.stderr)")
    try waitUntil("work[2] finished") { run.log.finish(of: "work[2]") != nil }
    let runID = try #require(run.log.named("run-started").first?.string("run"))
    let states = try squeue(["--noheader", "--array", "--states=all", "--name=oprun:\(runID):work", "--format=%K %T"])
      .split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    #expect(states.sorted() == ["0 RUNNING", "1 CANCELLED", "2 RUNNING"], "\(states)")
    _ = try scene.folder.write("go", "")
    let finished = run.process.wait()
    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    #expect(log.outcome(of: "work[2]") == "cancelled")
    #expect(log.cancelReason(of: "work[2]") == "control")
    #expect(log.outcome(of: "work[1]") == "succeeded")
    #expect(log.outcome(of: "work[3]") == "succeeded")
    expectStreamContract(log)
    #expect(try runQueued(log).isEmpty)
  }

  @Test func interruptCancelsEveryTaskOfAnArrayRunningOrNot() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 2
      jobs:
        long:
          matrix: {n: ["1", "2", "3"]}
          command: sleep 300
        after: {command: echo never, dependencies: [long]}
      """)
    let process = try OprunProcess(runArguments(["--backend", "slurm"]), in: folder)
    // Two at a time (%2): the third task is still queued.
    try waitUntil("two instances executing") { ["long[1]", "long[2]"].allSatisfy { folder.events.executed($0) } }
    process.send(SIGINT)
    let run = process.wait()
    #expect(run.signal == SIGINT, "\(run.stderr)")
    let log = folder.events
    for job in ["long[1]", "long[2]", "long[3]", "after"] { #expect(log.outcome(of: job) == "cancelled", "\(job)") }
    #expect(!log.executed("long[3]"))
    expectStreamContract(log)
    #expect(try runQueued(log).isEmpty)
  }

  @Test func theInstancesBehindAJobWithRetriesGoAsOneArrayOnceItsLastAttemptIsKnown() throws {
    let manifest = """
      jobs:
        flaky:
          command: echo "$OPRUN_ATTEMPT" >> flaky.attempts; [ "$OPRUN_ATTEMPT" -ge 2 ]
          retries: 2
        after:
          matrix: {n: ["1", "2", "3"]}
          command: echo ${{ matrix.n }} saw $(cat flaky.attempts | tr '\\n' ' ')
          dependencies: [flaky]
      """
    let (local, cluster, _) = try runLocallyAndOnTheCluster(manifest)
    for job in ["flaky", "after[1]", "after[2]", "after[3]"] {
      #expect(history(of: job, in: cluster.events) == history(of: job, in: local.events), "\(job)")
      #expect(outputLines(of: job, in: cluster.events) == outputLines(of: job, in: local.events), "\(job)")
    }
    #expect(outputLines(of: "after[2]", in: cluster.events) == ["2 saw 1 2\n"])
    let runID = try #require(cluster.events.named("run-started").first?.string("run"))
    let tasks = try squeue(["--noheader", "--array", "--states=all", "--name=oprun:\(runID):after", "--format=%F %K"])
      .split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
    #expect(tasks.count == 3 && Set(tasks.map { $0[0] }).count == 1, "\(tasks)")
    expectStreamContract(cluster.events)
  }

  @Test func ctlLimitChangesHowManyTasksOfAnArrayRunAtOnce() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 1
      jobs:
        work:
          matrix: {n: ["1", "2", "3"]}
          command: i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; test -e go
      """)
    let run = try scene.startRun(manifest: "jobs.yaml", events: eventsFile, ["--backend", "slurm"])
    try waitUntil("work[1] executing") { run.log.executed("work[1]") }
    let runID = try #require(run.log.named("run-started").first?.string("run"))
    let before = try squeue(["--noheader", "--array", "--states=all", "--name=oprun:\(runID):work", "--format=%K %T"])
      .split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    #expect(before.sorted() == ["0 RUNNING", "1 PENDING", "2 PENDING"], "one at a time (%1): \(before)")
    #expect(try scene.ctl(["--pid", String(run.pid), "limit", "jobs", "3"]).status == 0)
    try waitUntil("every instance executing") {
      ["work[1]", "work[2]", "work[3]"].allSatisfy { run.log.executed($0) }
    }
    _ = try scene.folder.write("go", "")
    let finished = run.process.wait()
    #expect(finished.status == 0, "\(finished.stderr)")
    expectStreamContract(run.log)
  }

  @Test func resumeSubmitsTheInstancesThatMustRunAsASmallerArray() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        part:
          matrix: {n: ["0", "1", "2", "3", "4"]}
          command: echo ${{ matrix.n }} >> ran; [ ${{ matrix.n }} = 0 ] || [ ${{ matrix.n }} = 2 ] || test -e fixed
      """)
    #expect(try runOprun(runArguments(["--backend", "slurm", "-k"]), in: folder).status == 1)
    _ = try folder.write("fixed", "")
    let run = try runOprun(runArguments(["--backend", "slurm", "--resume"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    for n in ["0", "2"] { #expect(log.finish(of: "part[\(n)]")?["resumed"] as? Bool == true) }
    for n in ["1", "3", "4"] { #expect(log.outcome(of: "part[\(n)]") == "succeeded") }
    let runID = try #require(log.named("run-started").first?.string("run"))
    let tasks = try squeue(["--noheader", "--array", "--states=all", "--name=oprun:\(runID):part", "--format=%F %K"])
      .split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
    #expect(Set(tasks.map { $0[0] }).count == 1 && Set(tasks.map { $0[1] }) == ["1", "3", "4"], "\(tasks)")
    let ran = folder.read("ran") ?? ""
    #expect(ran.split(separator: "\n").sorted() == ["0", "1", "1", "2", "3", "3", "4", "4"], "\(ran)")
    expectStreamContract(log)
  }

  @Test func aSubmissionSbatchRefusesEndsTheRunWithStatus2AndNothingQueued() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        a: {command: 'true'}
        b: {command: 'true', dependencies: [a]}
      """)
    let run = try runOprun(runArguments(["--backend", "slurm", "--slurm-partition=no-such-partition"]), in: folder)
    #expect(run.status == 2)
    #expect(run.stderr.contains("oprun: error: --backend slurm: sbatch refused job 'a'"), "\(run.stderr)")
    #expect(folder.events.named("transition").isEmpty)
  }

  @Test func aControllerThatDoesNotAnswerEndsTheRunWithStatus2BeforeAnythingRuns() throws {
    let folder = try Scratch()
    try folder.manifest("jobs: {a: {command: touch ran}}")
    // The cluster's configuration, but a port no controller listens on.
    let configuration = try #require(ProcessInfo.processInfo.environment["SLURM_CONF"])
    let text = try String(contentsOfFile: configuration, encoding: .utf8)
    let wrong = try folder.write(
      "slurm.conf", text.replacingOccurrences(of: "SlurmctldPort=6817", with: "SlurmctldPort=6899"))
    let run = try runOprun(runArguments(["--backend", "slurm"]), in: folder, environment: ["SLURM_CONF": wrong])
    #expect(run.status == 2)
    #expect(run.stderr.contains("the cluster's controller does not answer"), "\(run.stderr)")
    #expect(!folder.exists("ran"))
  }

  @Test func withoutSlurmsCommandsTheRunEndsWithStatus2BeforeAnythingRuns() throws {
    let folder = try Scratch()
    try folder.manifest("jobs: {a: {command: touch ran}}")
    let run = try runOprun(runArguments(["--backend", "slurm"]), in: folder, environment: ["PATH": "/nonexistent"])
    #expect(run.status == 2)
    #expect(run.stderr.contains("Slurm's commands (sbatch, squeue, scontrol) are not on PATH"), "\(run.stderr)")
    #expect(!folder.exists("ran"))
  }

  /// The run's jobs still pending or running on the cluster, by the run id its stream gave.
  /// Runs `manifest` with `-k` in a folder of its own, then on the cluster in another, and
  /// checks that both runs ended with the same status.
  private func runLocallyAndOnTheCluster(
    _ manifest: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> (local: Scratch, cluster: Scratch, clusterRun: Finished) {
    let local = try Scratch()
    try local.manifest(manifest)
    let localRun = try runOprun(runArguments(["-k"]), in: local)
    let cluster = try Scratch()
    try cluster.manifest(manifest)
    let clusterRun = try runOprun(runArguments(["-k", "--backend", "slurm"]), in: cluster)
    #expect(clusterRun.status == localRun.status, "\(clusterRun.stderr)", sourceLocation: sourceLocation)
    return (local, cluster, clusterRun)
  }

  /// A job's transitions, each as `from>to` with its outcome, exit code and attempt when it
  /// has them.
  private func history(of job: String, in log: EventLog) -> [String] {
    log.named("transition", job: job).map { event in
      var words = [(event.string("from") ?? "?") + ">" + (event.string("to") ?? "?")]
      if let outcome = event.string("outcome") { words.append(outcome) }
      if let code = event.int("exit_code") { words.append("exit \(code)") }
      if let template = event.string("template") { words.append("of \(template)") }
      return words.joined(separator: " ")
    }
  }

  /// The lines a job printed, as the event stream has them.
  private func outputLines(of job: String, in log: EventLog) -> [String] {
    log.named("output", job: job).compactMap { $0.string("text") }
  }

  private func runQueued(_ log: EventLog) throws -> [String] {
    let runID = try #require(log.named("run-started").first?.string("run"))
    let text = try squeue(["--noheader", "--states=PENDING,RUNNING,SUSPENDED", "--format=%j"])
    return text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("oprun:\(runID):") }
  }

  /// What `squeue ARGUMENTS` prints.
  private func squeue(_ arguments: [String]) throws -> String {
    let squeue = Process()
    squeue.executableURL = URL(fileURLWithPath: "/usr/bin/squeue")
    squeue.arguments = arguments
    let pipe = Pipe()
    squeue.standardOutput = pipe
    try squeue.run()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    squeue.waitUntilExit()
    return text
  }
}
