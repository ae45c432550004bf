import Foundation
import Testing

/// What `--backend slurm` does before its run begins — asking the cluster's controller,
/// submitting the jobs — with Slurm's commands faked on `PATH`: no cluster is needed, so these
/// run in every `make test`.
@Suite struct SlurmBeforeTheRunTests {
  /// `folder` with `tools` (name → script body) in `bin/`, and the `PATH` that finds them first.
  private func fakeTools(_ tools: [String: String], in folder: Scratch) throws -> [String: String] {
    try FileManager.default.createDirectory(atPath: folder.path("bin"), withIntermediateDirectories: true)
    for (tool, body) in tools {
      try folder.write("bin/\(tool)", "#!/bin/sh\n" + body)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path("bin/\(tool)"))
    }
    return ["PATH": folder.path("bin") + ":/usr/bin:/bin"]
  }

  /// How oprun is started: with the cancelling signals at their default actions, as from a
  /// shell, or blocked, as by a parent that spawns it from a thread that blocks them (then a
  /// signal stays pending until oprun unblocks it).
  enum Start: String, CaseIterable, Sendable {
    case defaultActions = "--default-signal=INT,TERM"
    case blocked = "--block-signal=INT,TERM"
  }

  /// oprun, started through `env` as `start` says, with `arguments`.
  private func startOprun(_ start: Start, _ arguments: [String], in folder: Scratch, path: [String: String]) throws
    -> OprunProcess
  {
    try OprunProcess(
      [start.rawValue, oprunBinary] + arguments, in: folder, environment: path, executable: "/usr/bin/env")
  }

  /// A controller that never answers: `scontrol` says its pid (the handshake), then hangs.
  private func folderWithAHangingScontrol() throws -> (Scratch, [String: String]) {
    let folder = try Scratch()
    try folder.manifest("jobs: {a: {command: touch ran}}")
    var tools = ["scontrol": "echo $$ > scontrol.part && mv scontrol.part scontrol.pid\nexec sleep 1000\n"]
    for tool in ["sbatch", "squeue", "scancel"] { tools[tool] = "touch \(tool).ran\nexit 1\n" }
    return (folder, try fakeTools(tools, in: folder))
  }

  @Test(arguments: [SIGINT, SIGTERM], Start.allCases)
  func aCancellingSignalWhileTheControllerIsAskedEndsOprunByItAndKillsScontrol(_ signal: Int32, _ start: Start)
    throws
  {
    let (folder, path) = try folderWithAHangingScontrol()
    let process = try startOprun(start, runArguments(["--backend", "slurm"]), in: folder, path: path)
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

  @Test func anInterruptWhileTheJobsAreSubmittedCancelsWhatWasSubmittedOnceTheRunBegins() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        a: {command: 'true'}
        b: {command: 'true', dependencies: [a]}
        c: {command: 'true'}
      """)
    // A cluster on PATH: the second sbatch waits for the test's word; squeue shows a job
    // cancelled once scancel was given its id, pending until then.
    let path = try fakeTools(
      [
        "scontrol": "echo 'Slurmctld(primary) at here is UP'\n",
        "sbatch": """
        id=$(( $(cat sbatch.count 2>/dev/null || echo 0) + 1 )); echo $id > sbatch.count
        if [ $id = 2 ]; then touch sbatch.waiting; while [ ! -e sbatch.go ]; do sleep 0.01; done; fi
        echo $id

        """,
        "scancel": "for id; do echo $id >> scancel.log; done\n",
        "squeue": """
        for argument; do case $argument in --jobs=*) ids=$(echo ${argument#--jobs=} | tr , ' ');; esac; done
        for id in $ids; do
          if grep -qx $id scancel.log 2>/dev/null; then echo "$id|CANCELLED|None|0|"; else echo "$id|PENDING|None|0|"; fi
        done

        """,
      ], in: folder)
    // Blocked, the signal would wait for the run's own trap anyway: from a shell, it would end
    // oprun by its default action, the submitted jobs left queued.
    let process = try startOprun(.defaultActions, runArguments(["--backend", "slurm"]), in: folder, path: path)
    try folder.waitUntilExists("sbatch.waiting")
    process.send(SIGINT)
    folder.touch("sbatch.go")
    let run = process.wait()
    #expect(run.signal == SIGINT, "\(run.stderr)")
    let cancelled = (folder.read("scancel.log") ?? "").split(separator: "\n").sorted()
    #expect(cancelled == ["1", "2", "3"])
    let log = folder.events
    for job in ["a", "b", "c"] { #expect(log.outcome(of: job) == "cancelled", "\(job)") }
    #expect(log.cancelReason(of: "a") == "interrupt")
    expectStreamContract(log)
  }
}
