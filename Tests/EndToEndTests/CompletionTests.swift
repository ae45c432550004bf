import Foundation
import Testing

/// The completion scripts oprun writes (`--generate-completion-script`, which `make install`
/// installs), tried in bash, zsh and fish: a run is completed without its `run`, and after a
/// manifest come its jobs, which oprun reads itself, never the subcommands.
@Suite struct CompletionTests {
  static let demoJobs: Set = [
    "prepare", "fetch-deps", "generate", "compile-lib", "compile-app", "docs", "link", "unit-tests",
    "integration-tests", "package", "collect-logs",
  ]
  static let subcommands = ["check", "list", "graph", "report", "ctl", "log"]

  @Test(arguments: ShellCompletion.Shell.allCases)
  func theFirstWordIsOfferedTheSubcommandsAndTheManifests(_ shell: ShellCompletion.Shell) throws {
    let first = try ShellCompletion(shell).offered("oprun ")
    for subcommand in Self.subcommands {
      #expect(first.contains(subcommand), "\(shell): oprun <TAB> offers \(subcommand): \(first)")
    }
    #expect(first.contains { $0.hasPrefix("jobs") }, "\(shell): and the folders a manifest is in: \(first)")
  }

  @Test(arguments: ShellCompletion.Shell.allCases)
  func aRunIsOfferedItsOptionsAndTheirValuesWithOrWithoutAManifest(_ shell: ShellCompletion.Shell) throws {
    let completion = try ShellCompletion(shell)
    for line in ["oprun --", "oprun jobs/demo.yaml --"] {
      let options = try completion.offered(line)
      for option in ["--max-concurrent", "--keep-going", "--output", "--events", "--dry-run"] {
        #expect(options.contains(option), "\(shell): \(line)<TAB> offers \(option): \(options)")
      }
    }
    #expect(try completion.offered("oprun jobs/demo.yaml --output ").sorted() == ["grouped", "prefixed", "raw"])
  }

  @Test(arguments: ShellCompletion.Shell.allCases)
  func aSubcommandIsOfferedItsOwnArguments(_ shell: ShellCompletion.Shell) throws {
    let completion = try ShellCompletion(shell)
    let manifests = try completion.offered("oprun check jobs/dem")
    #expect(manifests.count == 1 && manifests[0].hasSuffix("demo.yaml"), "\(shell): \(manifests)")
    let commands = try completion.offered("oprun ctl ")
    #expect(commands.contains("cancel-all") && commands.contains("watch"), "\(shell): \(commands)")
  }

  @Test(arguments: ShellCompletion.Shell.allCases)
  func afterAManifestItsJobsAreOfferedAndNoSubcommand(_ shell: ShellCompletion.Shell) throws {
    let completion = try ShellCompletion(shell)
    let offered = try completion.offered("oprun jobs/demo.yaml ")
    #expect(Set(offered) == Self.demoJobs, "\(shell): \(offered)")
    #expect(try completion.offered("oprun jobs/demo.yaml li") == ["link"])
    #expect(try completion.offered("oprun jobs/demo.yaml link unit") == ["unit-tests"])
  }

  @Test(arguments: ShellCompletion.Shell.allCases)
  func aMatrixJobIsOfferedWithItsInstances(_ shell: ShellCompletion.Shell) throws {
    let offered = try ShellCompletion(shell).offered("oprun jobs/matrix.yaml test")
    #expect(
      Set(offered) == ["test", "test[3.10,sqlite]", "test[3.12,sqlite]", "test[3.12,postgres]", "test[3.12,mysql]"],
      "\(shell): \(offered)")
  }

  @Test(arguments: ShellCompletion.Shell.allCases)
  func graphAndARunWithOptionsFirstAreOfferedTheJobsToo(_ shell: ShellCompletion.Shell) throws {
    let completion = try ShellCompletion(shell)
    #expect(try completion.offered("oprun graph jobs/demo.yaml li") == ["link"])
    #expect(try completion.offered("oprun list jobs/demo.yaml li") == ["link"])
    #expect(try completion.offered("oprun list jobs/shared/jobs.yaml common:") == ["common:toolchain", "common:lint"])
    #expect(try completion.offered("oprun -j 2 jobs/demo.yaml li") == ["link"])
    #expect(try completion.offered("oprun --output grouped jobs/demo.yaml li") == ["link"])
  }

  /// As `make <TAB>` offers targets: in a folder with `jobs.yaml`, its jobs are offered as the
  /// first word, beside the subcommands, and after a job of it.
  @Test(arguments: ShellCompletion.Shell.allCases)
  func inAFolderWithJobsYamlItsJobsAreOfferedFirstAndAfterAJob(_ shell: ShellCompletion.Shell) throws {
    let folder = try Scratch()
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent("jobs/demo.yaml").path, toPath: folder.path("jobs.yaml"))
    let completion = try ShellCompletion(shell)
    let first = try completion.offered("oprun ", in: folder.url.path)
    for expected in ["check", "jobs.yaml", "link", "unit-tests"] {
      #expect(first.contains(expected), "\(shell): oprun <TAB> offers \(expected): \(first)")
    }
    let afterAJob = try completion.offered("oprun link ", in: folder.url.path)
    #expect(Set(afterAJob) == Self.demoJobs, "\(shell): \(afterAJob)")
  }

  @Test(arguments: ShellCompletion.Shell.allCases)
  func aJobNameWithAColonOrABlankIsOfferedWhole(_ shell: ShellCompletion.Shell) throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  'lint:go': {command: 'true'}\n  'two words': {command: 'true'}\n")
    let offered = try ShellCompletion(shell).offered("oprun jobs.yaml ", in: folder.url.path)
    #expect(offered.sorted() == ["lint:go", "two words"], "\(shell): \(offered)")
  }
}
