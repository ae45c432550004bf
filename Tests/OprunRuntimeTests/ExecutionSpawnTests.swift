import COprunSystem
import Glibc
import OprunCore
import OprunRuntime
import Testing

@Suite struct ExecutionSpawnTests {
  @Test(arguments: [0, 1, 3, 127, 255])
  func exitStatusIsReported(code: Int32) throws {
    let record = try runChild("exit \(code)")
    #expect(record.termination == .exited(code))
  }

  @Test func deathBySignalIsReported() throws {
    let record = try runChild("kill -TERM $$")
    #expect(record.termination == .signalled(SIGTERM))
  }

  @Test func stdoutAndStderrArriveOnTheirOwnStreams() throws {
    let record = try runChild("echo out; echo err >&2")
    #expect(record.text(of: .stdout) == "out\n")
    #expect(record.text(of: .stderr) == "err\n")
  }

  @Test func mergedStandardErrorKeepsTheOrderTheChildWroteIn() throws {
    let record = try runChild("echo one; echo two >&2; echo three", mergesStandardError: true)
    #expect(record.text(of: .stdout) == "one\ntwo\nthree\n")
    #expect(record.text(of: .stderr) == "")
  }

  @Test func environmentReachesTheChildExactly() throws {
    let record = try runChild(
      "echo \"$GREETING\"; env | sort", environment: ["GREETING=hello world", "PATH=/usr/bin:/bin"])
    let lines = record.text(of: .stdout).split(separator: "\n")
    #expect(lines.first == "hello world")
    #expect(lines.contains("GREETING=hello world"))
    #expect(!lines.contains { $0.hasPrefix("HOME=") })
  }

  @Test func workingDirectoryReachesTheChild() throws {
    let directory = try makeTemporaryDirectory()
    defer { removeTree(directory) }
    let record = try runChild("pwd -P", directory: directory)
    let expected = try #require(resolvedPath(directory))
    #expect(record.text(of: .stdout) == expected + "\n")
  }

  @Test func standardInputIsTheNullDevice() throws {
    let record = try runChild("readlink /proc/self/fd/0; cat")
    #expect(record.text(of: .stdout) == "/dev/null\n")
    #expect(record.termination == .exited(0))
  }

  @Test func missingDirectoryIsASpawnErrorWithItsReason() {
    let request = SpawnRequest(command: "true", environment: [], workingDirectory: "/nonexistent/oprun-test")
    let result = Spawner().spawn(request)
    #expect(throws: SpawnError.directory("/nonexistent/oprun-test", errno: ENOENT)) { try result.get() }
    #expect(
      "\(SpawnError.directory("x", errno: ENOENT))"
        == "cannot change to directory 'x': No such file or directory (ENOENT)")
  }

  @Test func unstartableShellIsASpawnError() {
    let request = SpawnRequest(command: "true", environment: [], shell: "/nonexistent/sh")
    #expect(throws: SpawnError.program("/nonexistent/sh", errno: ENOENT)) { try Spawner().spawn(request).get() }
  }

  @Test func commandTooLongToExecIsASpawnError() {
    let request = SpawnRequest(command: "echo " + String(repeating: "x", count: 300_000), environment: [])
    #expect(throws: SpawnError.program("/bin/sh", errno: E2BIG)) { try Spawner().spawn(request).get() }
  }

  @Test func failedSpawnsLeaveNoDescriptorOpen() {
    let spawner = Spawner()
    let request = SpawnRequest(command: "true", environment: [], workingDirectory: "/nonexistent")
    _ = spawner.spawn(request)  // opens /dev/null, kept for the next spawns
    let before = openDescriptorCount()
    for _ in 0..<100 {
      let result = spawner.spawn(request)
      #expect(throws: SpawnError.directory("/nonexistent", errno: ENOENT)) { try result.get() }
    }
    // Tests running alongside hold descriptors too (about 150 at most); a leak would be 400.
    #expect(openDescriptorCount() - before < 250)
  }

  /// SIGPIPE ignored the way oprun ignores it (every change of an action goes through the
  /// signal trap's C side, which tells the spawner which actions its children must reset).
  @Test func childStartsWithDefaultSignalsAndAnEmptyMask() throws {
    #expect(oprun_signal_trap_ignore(SIGPIPE) == 0)
    defer { oprun_signal_trap_restore(SIGPIPE) }
    var blocked = sigset_t()
    var saved = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGUSR2)
    pthread_sigmask(SIG_BLOCK, &blocked, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    // Read by the shell itself (builtins, no fork): dash blocks every signal around its own forks.
    let record = try runChild(
      "while IFS= read -r line; do case $line in SigBlk*|SigIgn*) echo \"$line\";; esac; done < /proc/self/status")
    #expect(record.lines(of: .stdout) == ["SigBlk:\t0000000000000000\n", "SigIgn:\t0000000000000000\n"])
  }

  @Test func childAndGrandchildShareTheirOwnProcessGroup() throws {
    let loop = EventLoop()
    let (process, record) = try startChild("sleep 1000 & echo $!; wait", loop: loop)
    runLoop(loop) { !record.lines(of: .stdout).isEmpty }
    let grandchild = try #require(Int32(record.text(of: .stdout).dropLast()))
    #expect(processGroup(of: process.pid) == process.pid)
    #expect(processGroup(of: grandchild) == process.pid)
    #expect(process.pid != getpgrp())
    #expect(signalGroup(process.processGroup, SIGKILL))
    runLoop(loop) { record.termination != nil }
    #expect(record.termination == .signalled(SIGKILL))
  }

  @Test func signallingAGoneGroupIsNotAnError() throws {
    let loop = EventLoop()
    let (process, record) = try startChild("exit 0", loop: loop)
    runLoop(loop) { record.termination != nil }
    #expect(!processGroupExists(process.processGroup))
    #expect(!signalGroup(process.processGroup, SIGTERM))
  }
}
