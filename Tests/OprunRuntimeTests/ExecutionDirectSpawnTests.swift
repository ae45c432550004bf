import Foundation
import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Spawning a command without the shell: where the program is looked for, and the `PWD` it is
/// given, as `/bin/sh -c` would do both.
@Suite struct ExecutionDirectSpawnTests {
  @Test func aProgramIsLookedForInEachFolderOfThePathInOrder() {
    #expect(
      Spawner.programPaths(of: "cc", environment: ["HOME=/root", "PATH=/opt/bin::/usr/bin"])
        == ["/opt/bin/cc", "cc", "/usr/bin/cc"])
    #expect(Spawner.programPaths(of: "./run", environment: ["PATH=/usr/bin"]) == ["./run"])
    #expect(Spawner.programPaths(of: "cc", environment: ["HOME=/root"]) == nil, "no PATH: the shell decides")
  }

  @Test func theLastPathEntryWinsAsInTheShell() {
    #expect(Spawner.programPaths(of: "cc", environment: ["PATH=/a", "PATH=/b"]) == ["/b/cc"])
  }

  @Test func theWorkingFolderIsThePhysicalPathUnlessTheInheritedPWDNamesIt() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-pwd-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base + "/real", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: base + "/real")
    let folder = ShellWorkingFolder()
    let physical = try #require(realpath(base + "/real", nil).map { String(cString: $0) })

    #expect(folder.environment(["A=1", "PWD=/elsewhere"], in: base + "/link") == ["A=1", "PWD=" + physical])
    #expect(folder.environment(["PWD=\(base)/link"], in: base + "/link") == ["PWD=\(base)/link"])
    #expect(folder.environment(["PWD=\(base)/link"], in: base + "/real") == ["PWD=\(base)/link"])
    #expect(folder.environment([], in: base + "/real") == ["PWD=" + physical])
  }

  @Test func aMissingProgramFallsBackToTheShellWhichReportsIt() throws {
    let (status, output) = try run(["no-such-program-here", "x"])
    #expect((status >> 8) & 0xFF == 127)
    #expect(output == "/bin/sh: 1: no-such-program-here: not found\n")
  }

  @Test func aFoundProgramRunsWithoutAShell() throws {
    let (status, output) = try run(["readlink", "/proc/self/exe"])
    #expect(status == 0)
    #expect(output.hasSuffix("/readlink\n"), "the process is readlink itself, not a shell: \(output)")
  }

  @Test func oneSpawnerFollowsAPathThatChangesFromOneJobToTheNext() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-path-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: base) }
    for folder in ["a", "b"] {
      try FileManager.default.createDirectory(atPath: "\(base)/\(folder)", withIntermediateDirectories: true)
      try writeScript("#!/bin/sh\necho \(folder)\n", to: "\(base)/\(folder)/which")
    }
    let spawner = Spawner()

    for folder in ["a", "b", "a"] {
      let output = try run(["which"], path: "\(base)/\(folder):/usr/bin:/bin", spawner: spawner).output
      #expect(output == folder + "\n", "\(output)")
    }
  }

  /// Writes an executable script through a descriptor closed on exec. Foundation's own write
  /// leaves its descriptor open across an exec: a process another test started meanwhile
  /// could hold the script open for writing, and running it would fail (ETXTBSY).
  private func writeScript(_ text: String, to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    #expect(write(descriptor, bytes, bytes.count) == bytes.count)
  }

  /// Spawns `words` as a direct command (its shell form: the words joined) and waits for it:
  /// its wait status and what it wrote.
  private func run(
    _ words: [String], path: String = "/usr/bin:/bin", spawner: Spawner = Spawner()
  ) throws -> (status: Int32, output: String) {
    let request = SpawnRequest(
      command: words.joined(separator: " "), environment: ["PATH=" + path], mergesStandardError: true,
      directArguments: words)
    let process = try spawner.spawn(request).get()
    var status: Int32 = 0
    waitpid(process.pid, &status, 0)
    let output = readAll(process.stdout!)
    close(process.pidfd)
    return (status, output)
  }

  private func readAll(_ fd: Int32) -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
    while true {
      let count = read(fd, &buffer, buffer.count)
      if count <= 0 { break }
      bytes += buffer[0..<count]
    }
    close(fd)
    return String(decoding: bytes, as: UTF8.self)
  }
}
