import Foundation
import Testing

/// Manifests people share (SPEC §15), run by the built binary: `oprun list`, `include` and
/// variables.
@Suite struct ManifestSharingTests {
  /// `jobs.yaml` including `ci/common.yaml` as `common`, whose jobs write where they run.
  private func sharedFolder(_ root: String? = nil) throws -> Scratch {
    let folder = try Scratch()
    try FileManager.default.createDirectory(atPath: folder.path("ci"), withIntermediateDirectories: true)
    try folder.write(
      "ci/common.yaml",
      """
      jobs:
        setup:
          description: Set the tools up
          command: pwd > setup-ran-in
        lint:
          command: echo lint
          dependencies: [setup]
      """)
    try folder.manifest(
      root
        ?? """
        include:
          - {path: ci/common.yaml, prefix: common}
        vars: {MODE: debug}
        jobs:
          build:
            description: Build in ${{ vars.MODE }} mode
            command: echo ${{ vars.MODE }} > built-as
            dependencies: [common:lint]
          test:
            matrix: {n: [1, 2]}
            command: "true"
            dependencies: [build]
        """)
    return folder
  }

  @Test func listShowsEveryJobInOrderWithItsDescriptionIncludedJobsUnderTheirPrefix() throws {
    let folder = try sharedFolder()
    let list = try runOprun(["list"], in: folder)
    #expect(list.status == 0, "\(list.stderr)")
    #expect(
      list.stdout == """
        common:setup  Set the tools up
        common:lint   (after common:setup)
        build         Build in debug mode  (after common:lint)
        test          (after build · 2 instances)

        """)
    #expect(try runOprun(["-l", "MODE=release"], in: folder).stdout.contains("Build in release mode"))
  }

  @Test func listJSONGivesEachJobsFieldsForScripts() throws {
    let folder = try sharedFolder()
    let list = try runOprun(["list", "--json"], in: folder)
    #expect(list.status == 0, "\(list.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
    let jobs = try #require(object["jobs"] as? [[String: Any]])
    #expect(jobs.map { $0["name"] as? String } == ["common:setup", "common:lint", "build", "test"])
    #expect(jobs[0]["description"] as? String == "Set the tools up")
    #expect(jobs[1]["dependencies"] as? [String] == ["common:setup"])
    #expect(jobs[3]["instances"] as? Int == 2)
  }

  @Test func listMarksAJobWhoseFilesAreUpToDate() throws {
    let folder = try Scratch()
    try folder.manifest("jobs: {make: {command: echo made > out.txt, outputs: [out.txt]}, other: {command: 'true'}}")
    #expect(try runOprun(["list"], in: folder).stdout == "make\nother\n")
    #expect(try runOprun([], in: folder).status == 0)
    #expect(try runOprun(["list"], in: folder).stdout == "make   (up to date)\nother\n")
  }

  @Test func anIncludedJobRunsInItsOwnFolderAndIsDependedOnByItsPrefixedName() throws {
    let folder = try sharedFolder()
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let ranIn = try #require(folder.read("ci/setup-ran-in"))
    #expect(ranIn.hasSuffix("/ci\n"), "\(ranIn)")
    let order = folder.events.order(of: "finished")
    #expect(order.firstIndex(of: "common:lint")! < order.firstIndex(of: "build")!, "\(order)")
  }

  @Test func aProblemInAnIncludedFileIsShownThereNamingBothFiles() throws {
    let folder = try sharedFolder()
    try folder.write("ci/common.yaml", "jobs:\n  setup:\n    comand: echo\n  lint: {command: echo}\n")
    let check = try runOprun(["check"], in: folder)
    #expect(check.status == 2)
    #expect(
      check.stderr.hasPrefix(
        "ci/common.yaml:3:5: error: unknown key 'comand' in job 'setup' (did you mean 'command'?) "
          + "(in ci/common.yaml, included from jobs.yaml:2)\n    comand: echo\n    ^\n"), "\(check.stderr)")
  }

  @Test func anIncludeCycleIsAnErrorThatNamesIt() throws {
    let folder = try sharedFolder()
    try folder.write("ci/common.yaml", "include: [{path: ../jobs.yaml, prefix: root}]\njobs: {setup: {command: x}}\n")
    let check = try runOprun(["check"], in: folder)
    #expect(check.status == 2)
    #expect(check.stderr.contains("error: include cycle: jobs.yaml -> ci/common.yaml -> jobs.yaml"), "\(check.stderr)")
  }

  @Test func aVariableOnTheCommandLineReachesTheCommandOverTheManifests() throws {
    let folder = try sharedFolder()
    #expect(try runOprun(["jobs.yaml", "build"], in: folder).status == 0)
    #expect(folder.read("built-as") == "debug\n")
    let release = try runOprun(["jobs.yaml", "MODE=release", "build"], in: folder)
    #expect(release.status == 0, "\(release.stderr)")
    #expect(folder.read("built-as") == "release\n")
    #expect(try runOprun(["MODE=plain"], in: folder).status == 0, "a variable alone runs ./jobs.yaml")
    #expect(folder.read("built-as") == "plain\n")
  }

  @Test func aMisspelledVariableIsAnErrorWithASuggestion() throws {
    let folder = try sharedFolder()
    try folder.manifest("vars: {MODE: debug}\njobs:\n  build:\n    command: echo ${{ vars.MDOE }}\n")
    let check = try runOprun(["check"], in: folder)
    #expect(check.status == 2)
    #expect(
      check.stderr.hasPrefix(
        "jobs.yaml:4:14: error: unknown variable 'MDOE' in '${{ vars.MDOE }}' (did you mean 'MODE'?)"),
      "\(check.stderr)")
  }

  @Test func aChangedVariableRunsAgainTheJobsThatUseItOnly() throws {
    let folder = try sharedFolder()
    #expect(try runOprun(runArguments(["MODE=a"]), in: folder).status == 0)
    #expect(try runOprun(runArguments(["--resume", "MODE=a"]), in: folder).status == 0)
    #expect(folder.events.finish(of: "build")?["resumed"] as? Bool == true)
    let changed = try runOprun(runArguments(["--resume", "MODE=b"]), in: folder)
    #expect(changed.status == 0, "\(changed.stderr)")
    #expect(folder.events.finish(of: "build")?["resumed"] as? Bool == nil)
    #expect(folder.events.finish(of: "common:setup")?["resumed"] as? Bool == true)
    #expect(folder.read("built-as") == "b\n")
  }

  @Test func theDescriptionIsInTheDryRunTheEventStreamAndTheReport() throws {
    let folder = try sharedFolder()
    let plan = try runOprun(["-n"], in: folder)
    #expect(plan.stdout.contains("manifest order #3 — Build in debug mode\n"), "\(plan.stdout)")
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    let first = folder.events.named("transition", job: "build").first
    #expect(first?["description"] as? String == "Build in debug mode")
    let report = try runOprun(["report", eventsFile, "--html", "report.html"], in: folder)
    #expect(report.status == 0, "\(report.stderr)")
    #expect(folder.read("report.html")?.contains(#""description":"Build in debug mode""#) == true)
  }

  @Test func aVariableOnlyTheCommandLineSetsIsKnownToCheckAndRunAlike() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  deploy:\n    command: echo ${{ vars.TARGET }} > deployed\n")
    let unset = try runOprun(["check"], in: folder)
    #expect(unset.status == 2)
    #expect(unset.stderr.contains("unknown variable 'TARGET'"), "\(unset.stderr)")
    #expect(try runOprun(["check", "TARGET=staging"], in: folder).status == 0)
    #expect(try runOprun(["TARGET=staging", "deploy"], in: folder).status == 0)
    #expect(folder.read("deployed") == "staging\n")
  }
}
