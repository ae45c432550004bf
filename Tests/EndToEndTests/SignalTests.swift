import Foundation
import Testing

/// oprun's own signals (SPEC §3.4). Every test waits for a job's `ready` file (or an event)
/// before it signals oprun's pid; the test process itself is never signalled.
@Suite struct SignalTests {
  /// A cancelling signal, what oprun should call it, send on, and end by.
  struct CancellingSignal: Sendable, CustomTestStringConvertible {
    var sent: Int32
    var reason: String
    var forwarded: Int32
    var endsBy: Int32
    var testDescription: String { "signal \(sent)" }
  }

  /// Two running jobs, one waiting for a slot, one waiting for a dependency.
  static let busyManifest = """
    max-concurrent: 2
    jobs:
      running:
        command: touch ready; sleep 30
        completion: echo "$OPRUN_JOB_STATUS" > running.completion
      also-running:
        command: sleep 30
      queued:
        command: touch queued.ran
        completion: echo "$OPRUN_JOB_STATUS" > queued.completion
      dependent:
        command: touch dependent.ran
        dependencies: [running]
        completion: echo "$OPRUN_JOB_STATUS" > dependent.completion
    """

  @Test(arguments: [
    CancellingSignal(sent: SIGINT, reason: "interrupt", forwarded: SIGINT, endsBy: SIGINT),
    CancellingSignal(sent: SIGTERM, reason: "terminate", forwarded: SIGTERM, endsBy: SIGTERM),
    CancellingSignal(sent: SIGHUP, reason: "terminate", forwarded: SIGTERM, endsBy: SIGHUP),
  ])
  func aCancellingSignalCancelsEveryJobRunsCompletionsAndEndsOprunByTheSignal(_ signal: CancellingSignal) throws {
    let folder = try Scratch()
    try folder.manifest(Self.busyManifest)
    let oprun = try OprunProcess(runArguments(["--grace", "5"]), in: folder)
    try folder.waitUntilExists("ready")
    try folder.waitUntilJob("running", runs: "sleep")
    try folder.waitUntilJob("also-running", runs: "sleep")
    oprun.send(signal.sent)
    let run = oprun.wait()

    #expect(run.signal == signal.endsBy, "status \(run.status), signalled: \(run.signal != nil)")
    let log = folder.events
    for job in ["running", "also-running"] {
      let finish = try #require(log.finish(of: job))
      #expect(finish.string("outcome") == "cancelled")
      #expect(finish.int("signal") == Int(signal.forwarded))
      #expect(log.cancelReason(of: job) == signal.reason)
    }
    for job in ["queued", "dependent"] {
      #expect(log.outcome(of: job) == "cancelled")
      #expect(log.cancelReason(of: job) == signal.reason)
      #expect(!log.executed(job))
      #expect(!folder.exists("\(job).ran"))
      // Cancelled jobs still pass through their queue: pending → ready → finished.
      #expect(log.named("transition", job: job).last?.string("from") == "ready")
    }
    for job in ["running", "queued", "dependent"] {
      #expect(folder.read("\(job).completion") == "cancelled\n", "completion of \(job)")
    }
    #expect(log.finishedExitCode == 128 + Int(signal.endsBy))
    #expect(log.named("run-finished").first?["counts"].flatMap { ($0 as? [String: Any])?.int("cancelled") } == 4)
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }

  @Test func aSecondInterruptKillsEverythingAtOnceAndSkipsCompletions() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 1
      jobs:
        stubborn:
          command: trap '' INT; touch ready; while :; do sleep 0.02; done
          completion: touch stubborn.completion
        queued:
          command: touch queued.ran
          completion: touch queued.completion
      """)
    // The grace is long: only the second interrupt can end this run soon.
    let oprun = try OprunProcess(runArguments(["--grace", "60"]), in: folder)
    try folder.waitUntilExists("ready")
    oprun.send(SIGINT)
    try waitUntil("stubborn cancelled") { folder.events.cancelReason(of: "stubborn") == "interrupt" }
    #expect(folder.events.finish(of: "stubborn") == nil, "stubborn ignores SIGINT and keeps running")
    oprun.send(SIGINT)
    let run = oprun.wait()

    #expect(run.signal == SIGINT)
    let log = folder.events
    let finish = try #require(log.finish(of: "stubborn"))
    #expect(finish.string("outcome") == "cancelled")
    #expect(finish.int("signal") == Int(SIGKILL))
    #expect(log.outcome(of: "queued") == "cancelled")
    #expect(!log.executed("queued"))
    #expect(!folder.exists("queued.ran"))
    #expect(!folder.exists("stubborn.completion"))
    #expect(!folder.exists("queued.completion"))
    #expect(log.named("completion-started").isEmpty)
    #expect(log.finishedExitCode == 130)
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }

  @Test func sigusr1SuspendsTheQueuesSoNothingNewStartsUntilTheNextSigusr1() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      name: main
      queues:
        other: {max-concurrent: 1}
      jobs:
        first:
          command: while [ ! -f go ]; do sleep 0.01; done
        second:
          command: touch second.ran
          dependencies: [first]
        elsewhere:
          command: touch elsewhere.ran
          dependencies: [first]
          queue: other
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilExecuting("first")
    oprun.send(SIGUSR1)
    try waitUntil("both queues suspended") {
      Set(folder.events.named("queue").filter { $0.string("state") == "suspended" }.compactMap { $0.string("queue") })
        == ["main", "other"]
    }
    // A running job goes on while its queue is suspended.
    folder.touch("go")
    try folder.waitUntilFinished("first")
    oprun.send(SIGUSR1)
    let run = oprun.wait()

    #expect(run.status == 0)
    let log = folder.events
    let suspended = try #require(log.index { $0.string("event") == "queue" && $0.string("state") == "suspended" })
    let resumed = try #require(log.index { $0.string("event") == "queue" && $0.string("state") == "resumed" })
    let firstFinished = try #require(log.index(of: "first", to: "finished"))
    #expect(suspended < firstFinished && firstFinished < resumed)
    // What became ready while suspended started only once the queues were resumed.
    for job in ["second", "elsewhere"] {
      let ready = try #require(log.index(of: job, to: "ready"))
      let executing = try #require(log.index(of: job, to: "executing"))
      #expect(ready < resumed && resumed < executing, "\(job)")
      #expect(log.outcome(of: job) == "succeeded")
    }
    #expect(log.named("queue").filter { $0.string("state") == "resumed" }.count == 2)
    expectStreamContract(log)
  }

  @Test func sigtstpStopsTheRunningJobsAndOprunAndSigcontContinuesThem() throws {
    let folder = try Scratch()
    // The worker waits in `read` on a FIFO: one process that never forks, so it is stoppable
    // at any moment (a shell in vfork waits uninterruptibly for its child).
    guard mkfifo(folder.path("go.fifo"), 0o600) == 0 else { throw FIFOError() }
    try folder.manifest(
      """
      jobs:
        worker:
          command: touch ready; read line < go.fifo; echo "got $line"
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilExists("ready")
    try folder.waitUntilExecuting("worker")
    let worker = try #require(folder.events.pids(of: "worker").first)
    oprun.send(SIGTSTP)
    try waitUntil("worker stopped") { ProcessStat(pid: worker)?.state == "T" }
    try waitUntil("oprun stopped") { ProcessStat(pid: oprun.pid)?.state == "T" }
    #expect(ProcessStat(pid: worker)?.state == "T", "the job stays stopped while oprun is")
    oprun.send(SIGCONT)
    try waitUntil("worker continued") { ProcessStat(pid: worker).map { $0.state != "T" } ?? true }
    let fifo = try #require(FileHandle(forWritingAtPath: folder.path("go.fifo")))
    fifo.write(Data("go\n".utf8))
    try fifo.close()
    let run = oprun.wait()
    #expect(run.status == 0)
    #expect(run.stdout.contains("worker | got go"))
    #expect(folder.events.outcome(of: "worker") == "succeeded")
    expectStreamContract(folder.events)
  }

  /// A job stopped with the run (Ctrl-Z) is paused: the time oprun spends stopped does not
  /// count against the job's timeout, as it does not for `oprun ctl pause` (SPEC §8).
  @Test func timeTheRunSpendsStoppedByCtrlZDoesNotCountAgainstATimeout() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        worker:
          command: touch ready; sleep 1
          timeout: 2s
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilExists("ready")
    try folder.waitUntilExecuting("worker")
    oprun.send(SIGTSTP)
    try waitUntil("oprun stopped") { ProcessStat(pid: oprun.pid)?.state == "T" }
    // Stopped for longer than the whole limit: what the test is about is time passing.
    usleep(2_500_000)
    oprun.send(SIGCONT)
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stdout)")
    #expect(folder.events.outcome(of: "worker") == "succeeded")
  }

  /// oprun started with signals ignored (`nohup`, a shell's `trap ''`) keeps them ignored for
  /// itself, but its jobs, run directly or by the shell, start with every action at its default.
  @Test func jobsStartWithDefaultActionsWhenOprunInheritedIgnoredSignals() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        shell: {command: 'while IFS= read -r line; do case $line in SigIgn*) echo "$line";; esac; done < /proc/self/status'}
        direct: {command: grep SigIgn /proc/self/status}
      """)
    let run = try OprunProcess(
      ["-c", "trap '' HUP QUIT USR2 PIPE; exec \"$0\" -q jobs.yaml", oprunBinary], in: folder, executable: "/bin/sh"
    ).wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("shell | SigIgn:\t0000000000000000\n"), "\(run.stdout)")
    #expect(run.stdout.contains("direct | SigIgn:\t0000000000000000\n"), "\(run.stdout)")
  }
}

struct FIFOError: Error {}
