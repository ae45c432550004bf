import Foundation
import Testing

/// What `--backend slurm` does before it submits anything, with Slurm's commands faked on
/// `PATH`: no cluster is needed, so these run in every `make test`.
@Suite struct SlurmPreflightTests {
  /// A controller that never answers: `scontrol` says its pid (the handshake), then hangs.
  private func folderWithAHangingScontrol() throws -> Scratch {
    let folder = try Scratch()
    try folder.manifest("jobs: {a: {command: touch ran}}")
    try FileManager.default.createDirectory(atPath: folder.path("bin"), withIntermediateDirectories: true)
    for tool in ["sbatch", "squeue", "scancel"] {
      try folder.write("bin/\(tool)", "#!/bin/sh\ntouch \(tool).ran\nexit 1\n")
    }
    try folder.write(
      "bin/scontrol", "#!/bin/sh\necho $$ > scontrol.part && mv scontrol.part scontrol.pid\nexec sleep 1000\n")
    for tool in ["sbatch", "squeue", "scancel", "scontrol"] {
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path("bin/\(tool)"))
    }
    return folder
  }

  @Test(arguments: [SIGINT, SIGTERM])
  func aCancellingSignalWhileTheControllerIsAskedEndsOprunByItAndKillsScontrol(_ signal: Int32) throws {
    let folder = try folderWithAHangingScontrol()
    let process = try OprunProcess(
      runArguments(["--backend", "slurm"]), in: folder, environment: ["PATH": folder.path("bin") + ":/usr/bin:/bin"])
    try folder.waitUntilExists("scontrol.pid")
    let scontrol = try #require(
      Int32(folder.read("scontrol.pid")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
    // A test that fails must not leave the fake controller hanging.
    defer { if isAlive(scontrol) { kill(scontrol, SIGKILL) } }
    process.send(signal)
    let run = process.wait()
    #expect(run.signal == signal, "\(run.stderr)")
    #expect(run.stderr.contains("while waiting for the cluster's controller (scontrol ping); nothing was submitted"))
    #expect(!isAlive(scontrol))
    #expect(!folder.exists("sbatch.ran") && !folder.exists("ran"))
  }
}
