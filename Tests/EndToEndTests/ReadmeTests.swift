import Foundation
import Testing

/// Every command the README shows does what the README shows: it exits as shown. They run one
/// after another in the README's order, as a reader would type them, in a copy of the
/// repository's tracked files where `.build/release/oprun` and `oprun` are the oprun under test.
/// `ReadmeCommand` says how the README marks a command that fails or that no test can run.
@Suite struct ReadmeTests {
  /// The commands in `untested` blocks, each with why no test runs it. Keep it short: a command
  /// a test can run belongs in a block it runs.
  static let untested: [(command: String, why: String)] = [
    ("make demo", "builds the release binary"),
    ("make test", "is the test suite itself"),
    ("make test-slurm", "needs a Slurm cluster"),
    ("oprun --watch jobs/watch.yaml serve", "watches until Ctrl-C, which WatchTests send"),
    ("oprun ctl status", "needs a run of jobs/steer.yaml in progress in another terminal"),
    ("oprun ctl cancel lint", "the same run"),
    ("oprun ctl priority fetch-d high", "the same run"),
    ("oprun ctl limit build 4", "the same run"),
    ("oprun ctl suspend net", "the same run"),
    ("oprun ctl pause gate", "the same run"),
    ("oprun ctl cancel nosuch; echo exit=$?", "the same run"),
    ("oprun ctl priority gate low; echo exit=$?", "the same run"),
    ("oprun ctl continue gate; oprun ctl resume net", "the same run"),
    (".build/release/oprun log jobs/resume.yaml 20261128T150428-688-2", "names a run of the machine it was shown on"),
    ("oprun --backend slurm -k jobs/slurm.yaml", "needs a Slurm cluster"),
    ("squeue --states=all --format='%i %j %T %r'", "needs a Slurm cluster"),
    ("sudo scripts/slurm-cluster.sh install && sudo scripts/slurm-cluster.sh up", "installs Slurm"),
    ("eval \"$(scripts/slurm-cluster.sh env)\"", "needs a Slurm cluster"),
    (".build/release/oprun --backend slurm jobs/slurm.yaml", "needs a Slurm cluster"),
    ("sudo scripts/slurm-cluster.sh down", "needs a Slurm cluster"),
    ("make test-slurm", "needs a Slurm cluster"),
    ("make bench-slurm", "needs a Slurm cluster"),
  ]

  static func readmeCommands() throws -> [ReadmeCommand] {
    ReadmeCommand.all(in: try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8))
  }

  @Test func everyCommandInTheReadmeExitsAsTheReadmeShows() throws {
    let commands = try Self.readmeCommands()
    let repository = try RepositoryCopy()
    var failures: [String] = []
    for command in commands where !command.untested {
      // A build or an install from inside the test suite would take minutes, or change the machine.
      guard command.text.firstMatch(of: /(^|[;&|(]\s*)(make|sudo)\s/) == nil else {
        failures.append("\(command)\n  builds or installs: its block must be tagged untested")
        continue
      }
      let result = try repository.run(command.text)
      if result.status != command.expectedStatus {
        let said = (result.stderr + result.stdout).split(separator: "\n").suffix(8).joined(separator: "\n    ")
        failures.append(
          "\(command)\n  exited \(result.status) where the README shows \(command.expectedStatus):\n    \(said)")
      }
    }
    for failure in failures { Issue.record(Comment(rawValue: failure)) }
  }

  /// The README's marks are read as meant: commands are found in `sh` blocks and transcripts,
  /// with their expected status, and the untested ones are exactly those listed with a reason.
  @Test func theReadmesCommandsAreFoundWithTheirMarks() throws {
    let commands = try Self.readmeCommands()
    let tested = commands.filter { !$0.untested }.map(\.text)
    #expect(tested.contains { $0.hasPrefix(".build/release/oprun jobs/demo.yaml ") })
    #expect(tested.contains("oprun jobs/incremental.yaml"), "a transcript's $ line")
    #expect(commands.first { $0.text.hasPrefix(".build/release/oprun check jobs/broken.yaml") }?.expectedStatus == 2)
    #expect(!commands.contains { $0.text.contains("max-concurrent:") }, "a yaml block holds no command")
    let untested = commands.filter(\.untested).map { $0.text.commandWithoutComment }
    #expect(untested == Self.untested.map(\.command))
  }
}

/// A copy of the repository's tracked files in a scratch folder, where `.build/release/oprun`
/// and `oprun` on `PATH` are the oprun under test, and `oprun ctl` reaches only the runs started there.
private struct RepositoryCopy {
  let folder: Scratch
  let bash: ExternalTool

  init() throws {
    folder = try Scratch()
    bash = try ExternalTool("bash", package: "bash")
    let copy = #"git -C "$1" ls-files -z | tar -C "$1" --null -T - -cf - | tar -C "$2" -xf -"#
    let copied = try bash.run(["-c", copy, "copy", packageRoot.path, folder.url.path], in: try Scratch())
    try #require(copied.status == 0, "copying the repository: \(copied.stderr)")
    try FileManager.default.createDirectory(atPath: folder.path(".build/release"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: folder.path(".build/path"), withIntermediateDirectories: true)
    // Its own runtime folder, so that `oprun ctl` sees the runs started here and no other.
    try FileManager.default.createDirectory(
      atPath: folder.path(".build/runtime"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try FileManager.default.createSymbolicLink(
      atPath: folder.path(".build/release/oprun"), withDestinationPath: oprunBinary)
    try FileManager.default.createSymbolicLink(
      atPath: folder.path(".build/path/oprun"), withDestinationPath: oprunBinary)
  }

  /// Runs `command` with bash at the copy's root; a pipeline fails when any of its commands does.
  func run(_ command: String) throws -> Finished {
    let path = folder.path(".build/path") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    return try bash.run(
      ["-c", "set -o pipefail\n" + command], in: folder,
      // The cache of outputs the examples use is the copy's own, not the home folder's.
      environment: [
        "PATH": path, "XDG_RUNTIME_DIR": folder.path(".build/runtime"), "XDG_CACHE_HOME": folder.path(".build/cache"),
      ])
  }
}

extension String {
  /// The command without its trailing `# comment`, as `ReadmeTests.untested` lists it.
  fileprivate var commandWithoutComment: String {
    let end = firstRange(of: "  #")?.lowerBound ?? endIndex
    return self[..<end].trimmingCharacters(in: .whitespaces)
  }
}
