import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// The watchdog on its own: what it does when oprun's end of its channel closes, with and
/// without the run having dismissed it, and what it holds of the process that started it.
@Suite struct ExecutionWatchdogTests {
  @Test func aChannelClosedWithoutDismissalTerminatesTheListedGroupsOnly() throws {
    let loop = EventLoop()
    let (listed, listedRecord) = try startChild("exec sleep 60", loop: loop)
    // Outlives the watchdog's 60 s grace: a loaded machine may keep the watchdog that long.
    let (unlisted, unlistedRecord) = try startChild("exec sleep 600", loop: loop)
    defer {
      kill(unlisted.pid, SIGKILL)
      runLoop(loop) { unlistedRecord.termination != nil }
    }
    var watchdog: Watchdog? = try Watchdog.start(grace: 60).get()
    let watchdogPid = try #require(watchdog?.pid)
    watchdog?.watch(listed.processGroup)
    watchdog = nil

    runLoop(loop) { listedRecord.termination != nil }
    #expect(listedRecord.termination == .signalled(SIGTERM))
    runLoop(loop, checkingEvery: 0.01) { !isRunning(watchdogPid) }
    #expect(isRunning(unlisted.pid), "a group the watchdog was not told of is left alone")
  }

  @Test func aGroupThatIgnoresTerminationGetsKilledWhenTheGraceEnds() throws {
    let loop = EventLoop()
    let (stubborn, record) = try startChild("trap '' TERM; echo trapped; while :; do sleep 0.05; done", loop: loop)
    var watchdog: Watchdog? = try Watchdog.start(grace: 0.2).get()
    watchdog?.watch(stubborn.processGroup)
    // The SIGTERM must find the trap set: a shell still starting up would die of it.
    runLoop(loop) { !record.chunks.isEmpty }
    watchdog = nil

    runLoop(loop) { record.termination != nil }
    #expect(record.termination == .signalled(SIGKILL))
  }

  @Test func aStoppedGroupIsContinuedToTakeItsSigterm() throws {
    let loop = EventLoop()
    // Builtins only: a shell stopped while it waits for a vforked child that was stopped
    // before it could exec would never show as stopped itself.
    let (stopped, record) = try startChild("trap 'exit 7' TERM; echo ready; while :; do :; done", loop: loop)
    defer {
      kill(-stopped.processGroup, SIGKILL)
      runLoop(loop) { record.termination != nil }
    }
    runLoop(loop) { record.text(of: .stdout).contains("ready") }
    kill(-stopped.processGroup, SIGSTOP)
    runLoop(loop, checkingEvery: 0.01) { procStat(stopped.pid)?[3] == "T" }
    var watchdog: Watchdog? = try Watchdog.start(grace: 60).get()
    watchdog?.watch(stopped.processGroup)
    watchdog = nil

    // Stopped, the shell would only meet SIGKILL, when the grace is over.
    runLoop(loop) { record.termination != nil }
    #expect(record.termination == .exited(7))
  }

  @Test func aDismissedWatchdogExitsAndSignalsNothing() throws {
    let loop = EventLoop()
    let (child, record) = try startChild("exec sleep 60", loop: loop)
    defer {
      kill(child.pid, SIGKILL)
      runLoop(loop) { record.termination != nil }
    }
    let watchdog = try Watchdog.start(grace: 60).get()
    watchdog.watch(child.processGroup)
    watchdog.dismiss()

    runLoop(loop, checkingEvery: 0.01) { !isRunning(watchdog.pid) }
    #expect(isRunning(child.pid))
  }

  @Test func aForgottenGroupIsNotSignalled() throws {
    let loop = EventLoop()
    let (forgotten, forgottenRecord) = try startChild("exec sleep 60", loop: loop)
    let (listed, listedRecord) = try startChild("exec sleep 60", loop: loop)
    defer {
      kill(forgotten.pid, SIGKILL)
      runLoop(loop) { forgottenRecord.termination != nil }
    }
    var watchdog: Watchdog? = try Watchdog.start(grace: 60).get()
    let watchdogPid = try #require(watchdog?.pid)
    watchdog?.watch(forgotten.processGroup)
    watchdog?.forget(forgotten.processGroup)
    watchdog?.watch(listed.processGroup)
    watchdog = nil

    runLoop(loop) { listedRecord.termination != nil }
    runLoop(loop, checkingEvery: 0.01) { !isRunning(watchdogPid) }
    #expect(isRunning(forgotten.pid))
  }

  /// Nothing of the starting process's is kept open (a reader of its output sees the end
  /// when it ends), a terminal's signals and a shell's SIGHUP do not reach or end it, and
  /// it is no child of the process that started it.
  @Test func theWatchdogHoldsOnlyItsChannelInAGroupOfItsOwnAndOutlivesTerminalSignals() throws {
    let loop = EventLoop()
    let (child, record) = try startChild("exec sleep 60", loop: loop)
    var watchdog: Watchdog? = try Watchdog.start(grace: 60).get()
    let pid = try #require(watchdog?.pid)
    watchdog?.watch(child.processGroup)
    // Set up once it is in "/", where it goes just after closing what it inherited (its name
    // is no sign: the program is named so from its exec on).
    try #require(currentFolder(of: getpid()) != "/")
    runLoop(loop, checkingEvery: 0.01) { currentFolder(of: pid) == "/" }

    let descriptors = descriptorTargets(of: pid)
    #expect(descriptors.count == 1 && descriptors.allSatisfy { $0.hasPrefix("socket:") }, "\(descriptors)")
    #expect(processGroup(of: pid) == pid)
    #expect(procStat(pid)?[4] != String(getpid()))
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGPIPE] { kill(pid, signal) }
    watchdog = nil

    // Only a watchdog that outlived those signals ends the child.
    runLoop(loop) { record.termination != nil }
    #expect(record.termination == .signalled(SIGTERM))
  }
}

/// Whether `pid` exists and is neither a zombie nor dead.
private func isRunning(_ pid: Int32) -> Bool {
  guard let state = procStat(pid)?[3] else { return false }
  return state != "Z" && state != "X"
}

/// The folder `pid` is in, as /proc shows it; nil when it cannot be read.
private func currentFolder(of pid: Int32) -> String? {
  linkTarget("/proc/\(pid)/cwd")
}

/// What the link at `path` leads to; nil when it cannot be read.
private func linkTarget(_ path: String) -> String? {
  var buffer = [CChar](repeating: 0, count: 4096)
  let count = readlink(path, &buffer, buffer.count - 1)
  return count < 0 ? nil : String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// What each open descriptor of `pid` refers to (`socket:[…]`, a path, …).
private func descriptorTargets(of pid: Int32) -> [String] {
  guard let directory = opendir("/proc/\(pid)/fd") else { return [] }
  defer { closedir(directory) }
  var targets: [String] = []
  while let entry = readdir(directory) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    guard name != ".", name != ".." else { continue }
    targets.append(linkTarget("/proc/\(pid)/fd/\(name)") ?? "?")
  }
  return targets
}
