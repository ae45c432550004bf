import OprunCore
import Testing

/// Manifests people share (SPEC §15): `include` joins another manifest's jobs and queues under
/// a prefix, and `vars` and the command line's variables fill `${{ vars.NAME }}`.
@Suite struct SharedManifestTests {
  /// The graph of `files["jobs.yaml"]`, the other files given as its includes are read.
  private func load(
    _ files: [String: String], variables: [String: String] = [:]
  ) -> Result<JobGraph, ManifestErrors> {
    ManifestLoader.graph(
      from: SourceText(path: "jobs.yaml", text: files["jobs.yaml"]!), variables: variables, defaultMaxConcurrent: 2,
      including: { path in
        guard let text = files[path] else { return .failure(Diagnostic(at: nil, "cannot read '\(path)': missing")) }
        return .success(SourceText(path: path, text: text))
      })
  }

  private func problems(_ files: [String: String], variables: [String: String] = [:]) -> [String] {
    guard case .failure(let errors) = load(files, variables: variables) else { return [] }
    return errors.diagnostics.map(\.description)
  }

  private let common = """
    env: {TOOL: lint}
    cwd: tools
    defaults: {timeout: 30s}
    queues: {net: {max-concurrent: 1}}
    jobs:
      fetch:
        command: fetch
        queue: net
      check:
        command: check $TOOL
        dependencies: [fetch]
    """

  @Test func includedJobsAndQueuesJoinUnderTheirPrefixWithTheirOwnFilesSettings() throws {
    let files = [
      "jobs.yaml": """
      include: [{path: ci/common.yaml, prefix: ci}, ci/common.yaml]
      env: {TOOL: other}
      defaults: {timeout: 5m}
      jobs:
        build:
          command: make
          dependencies: [ci:check, common:fetch]
      """,
      "ci/common.yaml": common,
    ]
    let graph = try load(files).get()
    #expect(graph.jobs.map(\.name) == ["ci:fetch", "ci:check", "common:fetch", "common:check", "build"])
    #expect(graph.queues.map(\.name) == ["jobs", "ci:net", "common:net"])
    let check = graph.jobs[1]
    #expect(check.dependencies == [0])
    #expect(check.env == [EnvironmentEntry("TOOL", "lint")])
    #expect(check.writtenCwd == "ci/tools")
    #expect(check.timeout == 30)
    #expect(graph.jobs[0].queue == 1 && graph.jobs[2].queue == 2)
    #expect(graph.jobs[4].dependencies == [1, 2])
    #expect(graph.jobs[4].env == [EnvironmentEntry("TOOL", "other")] && graph.jobs[4].timeout == 300)
  }

  @Test func anIncludedJobsFingerprintIgnoresTheIncludingManifestsOwnSettings() throws {
    func fingerprint(_ root: String) throws -> String {
      let graph = try load(["jobs.yaml": root, "ci/common.yaml": common]).get()
      return graph.fingerprints()[graph.job(named: "common:check")!].text
    }
    let plain = try fingerprint("include: [ci/common.yaml]\njobs: {a: {command: x}}")
    let other = try fingerprint(
      "include: [ci/common.yaml]\nenv: {TOOL: x}\ncwd: elsewhere\ndefaults: {timeout: 1s}\njobs: {a: {command: y}}")
    #expect(plain == other)
  }

  @Test func aProblemInAnIncludedFileIsLocatedThereAndNamesBothFiles() {
    let files = [
      "jobs.yaml": "include:\n  - ci/common.yaml\njobs: {a: {command: x}}",
      "ci/common.yaml": "jobs:\n  b: {comand: y}",
    ]
    #expect(
      problems(files) == [
        "ci/common.yaml:2:7: error: unknown key 'comand' in job 'b' (did you mean 'command'?) "
          + "(in ci/common.yaml, included from jobs.yaml:2)"
      ])
  }

  @Test func anIncludeCycleIsAnErrorNamingItsPath() {
    let files = [
      "jobs.yaml": "include: [a.yaml]\njobs: {x: {command: x}}",
      "a.yaml": "include: [{path: jobs.yaml, prefix: back}]\njobs: {y: {command: y}}",
    ]
    #expect(
      problems(files) == [
        "a.yaml:1:18: error: include cycle: jobs.yaml -> a.yaml -> jobs.yaml (in a.yaml, included from jobs.yaml:1)"
      ])
  }

  @Test func twoIncludesWithOnePrefixClash() {
    let files = [
      "jobs.yaml": "include: [a/common.yaml, b/common.yaml]\njobs: {x: {command: x}}",
      "a/common.yaml": "jobs: {y: {command: y}}", "b/common.yaml": "jobs: {y: {command: y}}",
    ]
    #expect(problems(files).first?.contains("prefix 'common' is already used") == true)
  }

  @Test func aVariableIsFilledInAndTheCommandLineWins() throws {
    let files = [
      "jobs.yaml": """
      jobs:
        build:
          command: make MODE=${{ vars.MODE }}
          description: a ${{ vars.MODE }} build
          matrix: {arch: [x86]}
          cwd: out/${{ matrix.arch }}-${{vars.MODE}}
      vars: {MODE: debug}
      """
    ]
    let debug = try load(files).get().jobs[0]
    #expect(debug.commands == ["make MODE=debug"])
    #expect(debug.description == "a debug build")
    #expect(debug.writtenCwd == "out/x86-debug")
    let release = try load(files, variables: ["MODE": "release"]).get().jobs[0]
    #expect(release.commands == ["make MODE=release"])
  }

  @Test func anIncludedFilesVariablesAreDefaultsUnderTheIncludingOnes() throws {
    let files = [
      "jobs.yaml": "include: [c.yaml]\nvars: {MODE: release}\njobs: {x: {command: x}}",
      "c.yaml": "vars: {MODE: debug, LEVEL: '2'}\njobs: {y: {command: 'y ${{ vars.MODE }} ${{ vars.LEVEL }}'}}",
    ]
    #expect(try load(files).get().jobs[0].commands == ["y release 2"])
  }

  @Test func anUnknownVariableIsAnErrorWithASuggestion() {
    let files = ["jobs.yaml": "vars: {MODE: debug}\njobs:\n  a:\n    command: echo ${{ vars.MDOE }}"]
    #expect(
      problems(files) == ["jobs.yaml:4:14: error: unknown variable 'MDOE' in '${{ vars.MDOE }}' (did you mean 'MODE'?)"]
    )
  }

  @Test func aVariableOutsideTheKeysThatTakeSubstitutionsIsAnError() {
    let files = ["jobs.yaml": "vars: {T: 1s}\njobs:\n  a:\n    command: x\n    timeout: ${{ vars.T }}"]
    #expect(problems(files).contains { $0.hasPrefix("jobs.yaml:5:14: error: '${{ ... }}' is not replaced here") })
  }

  @Test func aCommandLineWordIsAVariableOnlyWithAValidName() {
    #expect(VariableArgument.parse("MODE=release")! == ("MODE", "release"))
    #expect(VariableArgument.parse("A_1=x=y")! == ("A_1", "x=y"))
    #expect(VariableArgument.parse("build") == nil)
    #expect(VariableArgument.parse("1X=y") == nil)
    #expect(VariableArgument.parse("a b=c") == nil)
  }

  @Test func problemsAreShownFileByFileTheManifestReadFirstFirst() {
    let files = [
      "jobs.yaml": "include: [c.yaml]\njobs:\n  a: {comand: x}",
      "c.yaml": "jobs: {b: {comand: y}}",
    ]
    #expect(problems(files).map { $0.prefix(while: { $0 != " " }) } == ["jobs.yaml:3:7:", "c.yaml:1:12:"])
  }
}
