import Foundation
import Testing

/// Commands without shell syntax run as their own program (SPEC §7, make's rule); each case
/// runs a command that way and the same command through the shell (a trailing `;` makes it
/// shell syntax), and both must look the same to the user.
@Suite struct DirectExecTests {
  /// Runs `command` as job `direct` and `command ;` as job `shell`, with `extra` job keys.
  func bothWays(_ command: String, extra: String = "", files: [String: String] = [:]) throws -> (
    log: EventLog, stdout: String
  ) {
    let folder = try Scratch()
    for (name, text) in files {
      let folderOfFile = (folder.path(name) as NSString).deletingLastPathComponent
      try FileManager.default.createDirectory(atPath: folderOfFile, withIntermediateDirectories: true)
      try folder.write(name, text)
    }
    _ = try ExternalTool("chmod", package: "coreutils").run(["+x"] + files.keys.sorted(), in: folder)
    let quoted = command.replacingOccurrences(of: "'", with: "''")
    try folder.manifest(
      """
      on-failure: continue
      jobs:
        direct: {command: '\(quoted)'\(extra)}
        shell: {command: '\(quoted) ;'\(extra)}
      """)
    let run = try runOprun(runArguments(["--output", "grouped", "-j", "1"]), in: folder)
    return (folder.events, run.stdout)
  }

  /// The block of output grouped mode printed for `job`.
  func block(_ job: String, in stdout: String) -> [String] {
    let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let start = lines.firstIndex(of: "── " + job) else { return [] }
    return Array(lines[(start + 1)...].prefix { !isOprunsOwnLine($0) })
  }

  /// Same outcome, exit status, signal and output (`inAnyOrder`: the same lines, for `env`,
  /// which the shell lists in an order of its own).
  func expectSame(
    _ result: (log: EventLog, stdout: String), inAnyOrder: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let direct = result.log.finish(of: "direct")
    let shell = result.log.finish(of: "shell")
    #expect(direct?.string("outcome") == shell?.string("outcome"), sourceLocation: sourceLocation)
    #expect(direct?.int("exit_code") == shell?.int("exit_code"), sourceLocation: sourceLocation)
    #expect(direct?.int("signal") == shell?.int("signal"), sourceLocation: sourceLocation)
    let directOutput = block("direct", in: result.stdout).map { $0.replacingOccurrences(of: "OPRUN_JOB=direct", with: "") }
    let shellOutput = block("shell", in: result.stdout).map { $0.replacingOccurrences(of: "OPRUN_JOB=shell", with: "") }
    if inAnyOrder {
      #expect(directOutput.sorted() == shellOutput.sorted(), sourceLocation: sourceLocation)
    } else {
      #expect(directOutput == shellOutput, sourceLocation: sourceLocation)
    }
  }

  @Test(arguments: ["true", "false", "sh -c 'exit 3'", "ls -d /", "ls /no/such/folder"])
  func exitStatusesAreTheSame(_ command: String) throws {
    expectSame(try bothWays(command))
  }

  @Test func aMissingProgramFailsWith127AndTheShellsMessage() throws {
    let result = try bothWays("no-such-program --flag")
    expectSame(result)
    #expect(result.log.finish(of: "direct")?.int("exit_code") == 127)
    #expect(block("direct", in: result.stdout) == ["/bin/sh: 1: no-such-program: not found"])
  }

  @Test func aScriptWithoutAnInterpreterLineOrWithoutPermissionBehavesTheSame() throws {
    expectSame(try bothWays("./plain.sh arg", files: ["plain.sh": "echo plain script got $1\n"]))
    let folder = try Scratch()
    try folder.write("locked.sh", "#!/bin/sh\necho never\n")
    try folder.manifest("jobs:\n  direct: {command: ./locked.sh}\n  shell: {command: ./locked.sh;}\non-failure: continue\n")
    let run = try runOprun(runArguments(), in: folder)
    #expect(folder.events.finish(of: "direct")?.int("exit_code") == 126)
    #expect(folder.events.finish(of: "shell")?.int("exit_code") == 126)
    #expect(run.stdout.contains("direct | /bin/sh: 1: ./locked.sh: Permission denied"))
  }

  @Test func theEnvironmentAndTheWorkingFolderAreTheSame() throws {
    expectSame(try bothWays("env", extra: ", cwd: sub, env: {EXTRA: yes}", files: ["sub/.keep": ""]), inAnyOrder: true)
  }

  @Test func aProgramIsFoundOnTheJobsPath() throws {
    let result = try bothWays(
      "tool-on-path", extra: ", env: {PATH: 'bin:/usr/bin:/bin'}", files: ["bin/tool-on-path": "#!/bin/sh\necho found me\n"])
    expectSame(result)
    #expect(block("direct", in: result.stdout) == ["found me"])
  }

  @Test func aDirectCommandIsItsOwnProcessGroupAndTakesTheSignalsOfACancelledRun() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  sleeper: {command: sleep 1000}\n")
    let oprun = try OprunProcess(runArguments(["-v"]), in: folder)
    try folder.waitUntilExecuting("sleeper")
    let pid = try #require(folder.events.pids(of: "sleeper").first)
    // The kernel lets a vfork's parent go on a moment before it renames the child for the
    // program it execs: until then the child still bears oprun's name.
    func comm() -> String { (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "" }
    try waitUntil("the child to bear its program's name") { comm() != "oprun\n" }
    #expect(comm() == "sleep\n", "no shell between oprun and the program")
    #expect(getpgid(pid_t(pid)) == pid_t(pid))
    oprun.send(SIGTERM)
    let run = oprun.wait()
    #expect(run.signal == SIGTERM)
    #expect(folder.events.outcome(of: "sleeper") == "cancelled")
    #expect(run.stdout.contains("exec direct"))
  }

  @Test func verboseOutputSaysWhichWayEachCommandRan() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  both: {commands: [true, 'true;']}\n")
    let run = try runOprun(runArguments(["-v"]), in: folder)
    #expect(run.stdout.contains("exec direct, sh -c"))
  }
}
