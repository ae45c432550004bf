import Foundation
import Testing

/// oprun dying without a chance to clean up (SPEC §3.4): its jobs do not run on unnoticed.
/// Every run here carries a marker in its environment, so that its watchdog, a copy of
/// oprun, can be told from those of runs other tests start at the same time. oprun is
/// killed as soon as the jobs say they are ready, however far oprun itself has got: a
/// job's group is known to the watchdog before the job's command runs.
@Suite struct OrphanTests {
  @Test func everyJobProcessDiesWhenOprunIsKilledAndOneIgnoringSigtermIsKilledAfterTheGrace() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        obedient:
          command: sleep 1000 & echo $! >> obedient.pids; sleep 1000 & echo $! >> obedient.pids; echo $$ >> obedient.pids; touch obedient.ready; wait
        stubborn:
          command: trap '' TERM; sleep 1000 & echo $! >> stubborn.pids; echo $$ >> stubborn.pids; touch stubborn.ready; wait
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "0.5"]), in: folder)
    try folder.waitUntilExists("obedient.ready")
    try folder.waitUntilExists("stubborn.ready")
    let pids = folder.pids("obedient.pids") + folder.pids("stubborn.pids")
    defer { for pid in pids { kill(pid, SIGKILL) } }
    #expect(pids.count == 5)

    oprun.send(SIGKILL)
    for pid in pids {
      try waitUntil("process \(pid) of a job to end") { !isAlive(pid) }
    }
    #expect(oprun.wait().signal == SIGKILL)
  }

  /// Ctrl-Z stopped the job; it takes its SIGTERM now, its trap runs, rather than SIGKILL
  /// ending it when the (long) grace is over. The job ignores SIGHUP: the kernel sends
  /// SIGHUP and SIGCONT to a stopped group that oprun's death leaves orphaned (that the
  /// watchdog's own SIGCONT is sent is `ExecutionWatchdogTests`'). Its output goes elsewhere:
  /// dash reports its child's death by a signal on standard error, and the pipe to a killed
  /// oprun would end it by SIGPIPE first. It loops on a builtin until it is stopped: a shell
  /// stopped while it waits for a vforked child stopped before its exec never shows as stopped.
  @Test func aJobStoppedByCtrlZTakesItsSigtermWhenOprunIsKilled() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        worker:
          command: exec > /dev/null 2>&1; trap '' HUP; trap 'touch got-term; exit 0' TERM; touch ready; while :; do :; done
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "300"]), in: folder)
    try folder.waitUntilExists("ready")
    try folder.waitUntilExecuting("worker")
    let worker = try #require(folder.events.pids(of: "worker").first)
    defer { kill(-worker, SIGKILL) }
    oprun.send(SIGTSTP)
    try waitUntil("worker stopped") { ProcessStat(pid: worker)?.state == "T" }
    try waitUntil("oprun stopped") { ProcessStat(pid: oprun.pid)?.state == "T" }

    oprun.send(SIGKILL)
    try folder.waitUntilExists("got-term")
    try waitUntil("the worker's group to end") { liveMembers(ofGroup: worker).isEmpty }
    #expect(oprun.wait().signal == SIGKILL)
  }

  /// A job's descendant that left the job's process group for one of its own (a shell's job
  /// control, `setpgid`), not its session (`setsid`), is still the run's: it is ended when
  /// the run ends.
  @Test func aDescendantInANewProcessGroupIsEndedWhenTheRunEnds() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        leaver:
          command: bash -c 'set -m; sleep 300 & echo $! > leftover.pid'
      """)
    let run = try runOprun(runArguments(["--grace", "0.5"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let leftover = try #require(folder.pids("leftover.pid").first)
    defer { kill(leftover, SIGKILL) }
    try waitUntil("the descendant in a group of its own to end") { !isAlive(leftover) }
  }

  /// The same descendant, left behind by a job that finished, when oprun is then killed: the
  /// watchdog was told of its group when oprun adopted it.
  @Test func aDescendantInANewProcessGroupIsEndedWhenOprunIsKilled() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        leaver:
          command: bash -c 'set -m; sleep 300 & echo $! > leftover.pid'
        waiter:
          command: touch ready; sleep 1000
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "0.5"]), in: folder)
    try folder.waitUntilFinished("leaver")
    try folder.waitUntilExists("ready")
    let leftover = try #require(folder.pids("leftover.pid").first)
    defer { kill(leftover, SIGKILL) }
    #expect(isAlive(leftover))
    oprun.send(SIGKILL)
    try waitUntil("the descendant in a group of its own to end") { !isAlive(leftover) }
    #expect(oprun.wait().signal == SIGKILL)
  }

  @Test func aProcessDetachedWithSetsidOutlivesAKilledOprun() throws {
    let folder = try Scratch()
    let marker = "OPRUN_TEST_RUN=\(UUID().uuidString)"
    try folder.manifest(
      """
      jobs:
        daemon:
          command: setsid sh -c 'echo $$ > daemon.pid; exec sleep 1000' & sleep 1000 & echo $! > child.pid; while [ ! -s daemon.pid ]; do sleep 0.01; done; touch ready; wait
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "0.5"]), in: folder, environment: environment(marker))
    try folder.waitUntilExists("ready")
    let daemon = try #require(folder.pids("daemon.pid").first)
    let child = try #require(folder.pids("child.pid").first)
    defer { kill(daemon, SIGKILL) }
    // The watchdog names itself once it is set up, which may come after the job is ready (a
    // slow start, as under ThreadSanitizer).
    try waitUntil("the run's watchdog to start") { liveWatchdogs(withEnvironment: marker).count == 1 }

    oprun.send(SIGKILL)
    try waitUntil("the job's child to end") { !isAlive(child) }
    try waitUntil("the watchdog to end") { liveWatchdogs(withEnvironment: marker).isEmpty }
    #expect(isAlive(daemon), "a setsid daemon is left alone by the watchdog")
    // Foundation's Process learns of an exit through a descriptor the daemon holds too.
    kill(daemon, SIGKILL)
    #expect(oprun.wait().signal == SIGKILL)
  }

  @Test func aFinishedRunLeavesNoWatchdogAndItsDismissedWatchdogEndsNothing() throws {
    let folder = try Scratch()
    let marker = "OPRUN_TEST_RUN=\(UUID().uuidString)"
    try folder.manifest(
      """
      jobs:
        daemon:
          command: setsid sh -c 'echo $$ > daemon.pid; exec sleep 1000' & while [ ! -s daemon.pid ]; do sleep 0.01; done; touch ready; while [ ! -e go ]; do sleep 0.01; done
      """)
    let oprun = try OprunProcess(runArguments(), in: folder, environment: environment(marker))
    try folder.waitUntilExists("ready")
    let daemon = try #require(folder.pids("daemon.pid").first)
    defer { kill(daemon, SIGKILL) }
    try waitUntil("the run's watchdog to start while its job runs") {
      liveWatchdogs(withEnvironment: marker).count == 1
    }

    folder.touch("go")
    // Foundation's Process learns of an exit through a descriptor the daemon holds too.
    try waitUntil("oprun to end") { !isAlive(oprun.pid) }
    try waitUntil("the watchdog to end") { liveWatchdogs(withEnvironment: marker).isEmpty }
    #expect(isAlive(daemon))
    expectNoProcessLeft(folder.events)
    kill(daemon, SIGKILL)
    #expect(oprun.wait().status == 0)
  }

  /// The watchdog is the small program built beside oprun (`make build`, `make test`), not
  /// oprun's own executable loaded again at every run's start.
  @Test func theWatchdogIsTheProgramBesideOprunsExecutable() throws {
    let program = try #require(watchdogProgram, "no oprun-watchdog beside \(oprunBinary): make builds it")
    let folder = try Scratch()
    let marker = "OPRUN_TEST_RUN=\(UUID().uuidString)"
    try folder.manifest("jobs:\n  waiter:\n    command: touch ready; while [ ! -e go ]; do sleep 0.01; done\n")
    let oprun = try OprunProcess(runArguments(), in: folder, environment: environment(marker))
    try folder.waitUntilExists("ready")
    try waitUntil("the run's watchdog to start") { liveWatchdogs(withEnvironment: marker).count == 1 }
    let watchdog = try #require(liveWatchdogs(withEnvironment: marker).first)
    #expect(executable(of: watchdog) == program)
    folder.touch("go")
    #expect(oprun.wait().status == 0)
  }

  /// Where the watchdog program is missing (an oprun copied alone), oprun runs its own
  /// executable as the watchdog, and a SIGKILLed oprun's job still ends.
  @Test func anOprunCopiedWithoutItsWatchdogProgramIsItsOwnWatchdog() throws {
    let folder = try Scratch()
    let copy = folder.path("oprun")
    try FileManager.default.copyItem(atPath: oprunBinary, toPath: copy)
    let marker = "OPRUN_TEST_RUN=\(UUID().uuidString)"
    try folder.manifest("jobs:\n  sleeper:\n    command: sleep 1000 & echo $! > sleeper.pid; touch ready; wait\n")
    let oprun = try OprunProcess(
      runArguments(["--grace", "0.5"]), in: folder, environment: environment(marker), executable: copy)
    try folder.waitUntilExists("ready")
    let sleeper = try #require(folder.pids("sleeper.pid").first)
    defer { kill(sleeper, SIGKILL) }
    try waitUntil("the run's watchdog to start") { liveWatchdogs(withEnvironment: marker).count == 1 }
    let watchdog = try #require(liveWatchdogs(withEnvironment: marker).first)
    #expect(executable(of: watchdog) == URL(fileURLWithPath: copy).resolvingSymlinksInPath().path)

    oprun.send(SIGKILL)
    try waitUntil("the job's sleep to end") { !isAlive(sleeper) }
    #expect(oprun.wait().signal == SIGKILL)
  }

  /// The watchdog holds none of oprun's descriptors: `oprun | cat` ends when oprun does,
  /// even while the watchdog waits out a long grace for a job that ignores SIGTERM.
  @Test func oprunPipedIntoCatEndsWhenOprunIsKilledWhileItsWatchdogWaits() throws {
    let folder = try Scratch()
    let marker = "OPRUN_TEST_RUN=\(UUID().uuidString)"
    try folder.manifest(
      """
      jobs:
        stubborn:
          command: trap '' TERM; echo $PPID > oprun.pid; echo $$ > job.pid; touch ready; while :; do sleep 0.05; done
      """)
    let shell = try OprunProcess(
      ["-c", "\"$0\" --grace 300 --events \(eventsFile) jobs.yaml | cat > cat.out; touch cat.ended", oprunBinary],
      in: folder, environment: environment(marker), executable: "/bin/sh")
    try folder.waitUntilExists("ready")
    let oprun = try #require(folder.pids("oprun.pid").first)
    let job = try #require(folder.pids("job.pid").first)
    defer {
      kill(-job, SIGKILL)
      for watchdog in liveWatchdogs(withEnvironment: marker) { kill(watchdog, SIGKILL) }
    }

    kill(oprun, SIGKILL)
    try folder.waitUntilExists("cat.ended")
    #expect(liveWatchdogs(withEnvironment: marker).count == 1, "the watchdog still waits for the stubborn job")
    kill(-job, SIGKILL)
    #expect(shell.wait().status == 0)
  }

  /// A job inherits no descriptor of oprun's: the journal, the event and trace files, the
  /// control socket, the watchdog's channel and another job's pipes are all close-on-exec.
  /// The watchdog is the `oprun-watchdog` program, or oprun's executable under that name:
  /// run so by hand, on a descriptor that is not oprun's channel, it must not take the failed
  /// read for oprun's death and empty and remove the folders it is given.
  @Test(arguments: ["oprun", "oprun-watchdog"])
  func theWatchdogRunByHandWithoutOprunsChannelTouchesNothing(_ executable: String) throws {
    let binary = executable == "oprun" ? oprunBinary : try #require(watchdogProgram)
    let folder = try Scratch()
    let decoy = folder.path("oprun-decoy")
    try FileManager.default.createDirectory(atPath: decoy + "/empty", withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      "-c", #"exec -a oprun-watchdog "$0" --oprun-watchdog-channel 0 0 "$1" < /dev/null"#, binary, decoy,
    ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 2)
    #expect(FileManager.default.fileExists(atPath: decoy + "/empty"))
  }

  @Test func aJobSeesOnlyStandardInputOutputAndError() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        holder:
          command: while [ ! -e listed ]; do sleep 0.01; done
        lister:
          command: ls /proc/$$/fd; touch listed
      """)
    // oprun starts with nothing but 0, 1 and 2, whatever this process leaves open.
    let closeInherited = "for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done"
    let oprun = try OprunProcess(
      ["-c", "\(closeInherited); exec \"$0\" \"$@\"", oprunBinary] + runArguments(["--trace", "trace.json"]),
      in: folder, executable: "/bin/bash")
    // Foundation's Process learns of an exit through a descriptor closed here with the rest.
    try waitUntil("oprun to end") { !isAlive(oprun.pid) }
    let run = oprun.wait()

    #expect(run.status == 0, "\(run.stderr)")
    // The shell's own descriptors, listed while its child runs `ls`.
    let listed = run.stdout.split(separator: "\n").compactMap { line in
      line.hasPrefix("lister | ") ? String(line.dropFirst("lister | ".count)) : nil
    }
    #expect(listed == ["0", "1", "2"])
  }

  private var watchdogProgram: String? { programBesideOprun("oprun-watchdog") }

  /// The executable `pid` runs, as /proc names it.
  private func executable(of pid: Int32) -> String? {
    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
  }

  private func environment(_ marker: String) -> [String: String] {
    let parts = marker.split(separator: "=", maxSplits: 1).map(String.init)
    return [parts[0]: parts[1]]
  }
}

extension Scratch {
  /// The process ids written one per line to `name`.
  fileprivate func pids(_ name: String) -> [Int32] {
    (read(name) ?? "").split(whereSeparator: \.isNewline).compactMap { Int32($0) }
  }
}
