import Foundation
import Testing

/// `oprun JOB...` as `make TARGET...` is typed (SPEC §4): a first word that names no file is a
/// job of `./jobs.yaml`; and a job name that is not one says what was meant.
@Suite struct DefaultManifestTests {
  static let chain = CommandLineTests.chain

  @Test(arguments: [["b"], ["-n", "b"], ["-q", "b", "a"], ["-j", "2", "b"]])
  func aFirstWordThatNamesNoFileIsAJobOfJobsYaml(_ arguments: [String]) throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let run = try runOprun(arguments, in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.isEmpty, "\(run.stderr)")
    if arguments.contains("-n") {
      #expect(run.stdout.contains("plan: 2 jobs"), "\(run.stdout)")
    } else {
      #expect(folder.exists("a.ran") && folder.exists("b.ran"))
      #expect(!folder.exists("c.ran") && !folder.exists("d.ran"))
    }
  }

  /// A `build/` folder beside a job `build` is common; a folder is never a manifest.
  @Test func aFolderNamedLikeAJobLeavesTheJobItsName() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    try FileManager.default.createDirectory(atPath: folder.path("b"), withIntermediateDirectories: false)
    let run = try runOprun(["b"], in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.exists("b.ran") && !folder.exists("c.ran"))
  }

  @Test func aFileNamedLikeAJobIsTheManifestAndOprunSaysWhichItTook() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    try folder.write("b", "jobs:\n  other: {command: touch other.ran}\n")
    let run = try runOprun(["b"], in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.exists("other.ran") && !folder.exists("b.ran"))
    #expect(
      run.stderr
        == "oprun: warning: 'b' is a file: taken as the manifest, not as the job 'b' of ./jobs.yaml"
        + " (oprun jobs.yaml b runs that job)\n")
  }

  @Test func aFileNamedLikeNoJobIsTheManifestWithoutAWord() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    try folder.write("ci", "jobs:\n  other: {command: touch other.ran}\n")
    let run = try runOprun(["ci"], in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.isEmpty, "\(run.stderr)")
    #expect(folder.exists("other.ran"))
  }

  /// A word ending in `.yaml` is a manifest, there or not: a mistyped path is not a job.
  @Test func aMissingYamlFileIsAMissingManifestNotAJob() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let run = try runOprun(["jbos.yaml"], in: folder)
    #expect(run.status == 2)
    #expect(run.stderr == "oprun: error: cannot read 'jbos.yaml': No such file or directory\n")
  }

  @Test func withoutJobsYamlAWordThatNamesNoFileIsStillAManifestThatCannotBeRead() throws {
    let run = try runOprun(["build"], in: Scratch())
    #expect(run.status == 2)
    #expect(run.stderr == "oprun: error: cannot read 'build': No such file or directory\n")
  }

  @Test func graphDrawsTheJobsOfJobsYamlTheWordsName() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let graph = try runOprun(["graph", "b"], in: folder)
    #expect(graph.status == 0, "\(graph.stderr)")
    #expect(graph.stdout.contains("n0 [label=\"a\"]") && graph.stdout.contains("n1 [label=\"b\"]"), "\(graph.stdout)")
    #expect(graph.stdout.contains("n0 -> n1"))
    #expect(!graph.stdout.contains("label=\"c\""))
  }

  @Test func anUnknownJobCloseToAJobNamesIt() throws {
    let folder = try Scratch()
    try folder.manifest(
      Self.chain.replacingOccurrences(of: "  b:", with: "  build:").replacingOccurrences(of: "[b]", with: "[build]"))
    let run = try runOprun(["biuld"], in: folder)
    #expect(run.status == 2)
    #expect(run.stderr == "oprun: error: unknown job 'biuld' (did you mean 'build'?)\n")
  }

  @Test func anUnknownJobCloseToNoJobListsTheJobs() throws {
    let folder = try Scratch()
    try folder.manifest(Self.chain)
    let run = try runOprun(["jobs.yaml", "test"], in: folder)
    #expect(run.status == 2)
    #expect(run.stderr == "oprun: error: unknown job 'test'; the jobs are a, b, c and d\n")
  }

  /// A manifest of many jobs lists the first twenty and counts the others; a matrix job is
  /// listed once, by the name that selects its instances.
  @Test func theListOfJobsIsBoundedAndNamesAMatrixJobOnce() throws {
    let folder = try Scratch()
    let many = (1...30).map { "  job\($0): {command: 'true'}" }.joined(separator: "\n")
    try folder.manifest("jobs:\n  m: {matrix: {x: [1, 2, 3]}, command: 'true'}\n" + many + "\n")
    let run = try runOprun(["zzz"], in: folder)
    #expect(run.status == 2)
    let listed = ["m"] + (1...19).map { "job\($0)" }
    #expect(
      run.stderr == "oprun: error: unknown job 'zzz'; the jobs are \(listed.joined(separator: ", ")) and 11 more\n")
  }

  @Test func anUnknownPriorityWordForCtlNamesTheClosestWord() throws {
    let scene = try ControlScene()
    let run = try scene.ctl(["priority", "bad", "veryhigh"])
    #expect(run.status == 2)
    #expect(
      run.stderr.contains(
        "unknown priority 'veryhigh' (did you mean 'veryHigh'?); expected veryLow, low, normal, high or veryHigh (or -8, -4, 0, 4, 8)"
      ), "\(run.stderr)")
  }

  /// A misspelt ctl command is answered before any run is looked for, as a misspelt job is.
  @Test func aMisspeltCtlCommandNamesTheClosestOrListsThem() throws {
    let scene = try ControlScene()
    let close = try scene.ctl(["--pid", "1", "cancle", "build"])
    #expect(close.status == 2)
    #expect(close.stderr.hasPrefix("oprun: error: unknown command 'cancle' (did you mean 'cancel'?)\n"), "\(close.stderr)")
    let far = try scene.ctl(["zzzz"])
    #expect(far.status == 2)
    #expect(
      far.stderr.hasPrefix(
        "oprun: error: unknown command 'zzzz'; the commands are list, status, cancel, cancel-all, suspend, resume, limit, budget, priority, pause, continue, watch\n"
      ), "\(far.stderr)")
  }

  /// The run answers `oprun ctl` about a job it does not have as a run's command line does.
  @Test func ctlNamesTheClosestJobOrListsTheJobsOfTheRun() throws {
    let scene = try ControlScene()
    try scene.whileGatedRunWaits { _ in
      let close = try scene.ctl(["cancel", "frist"])
      #expect(close.status == 1)
      #expect(close.stderr == "oprun: error: unknown job 'frist' (did you mean 'first'?)\n")
      let far = try scene.ctl(["cancel", "zzz", "yyy"])
      #expect(far.status == 1)
      #expect(
        far.stderr == "oprun: error: unknown job 'zzz'; unknown job 'yyy'; the jobs are first, second, third and noisy\n")
    }
  }
}
