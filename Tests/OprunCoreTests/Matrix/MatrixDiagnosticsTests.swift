import OprunCore
import Testing

/// Every problem a matrix can have (SPEC §11), at the scalar that causes it.
@Suite struct MatrixDiagnosticsTests {
  /// The problems of `text`, as `FILE:LINE:COLUMN: error: MESSAGE`; empty if it is accepted.
  private func problems(_ text: String) -> [String] {
    let source = SourceText(path: "m.yaml", text: text)
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else { return [] }
    return errors.diagnostics.map(\.description)
  }

  @Test func anUnknownAxisIsReportedAtItsScalarWithASuggestion() {
    let text = """
      jobs:
        test:
          matrix: {python: ["3.11"]}
          command: tox -e ${{ matrix.pyton }}
      """
    #expect(
      problems(text) == ["m.yaml:4:14: error: unknown matrix axis 'pyton' in job 'test' (did you mean 'python'?)"])
  }

  @Test func anUnknownAxisFarFromEveryOtherListsTheAxes() {
    let text = """
      jobs:
        test:
          matrix: {os: [linux], db: [pg]}
          command: echo
          env: {V: "${{ matrix.version }}"}
      """
    #expect(
      problems(text) == ["m.yaml:5:14: error: unknown matrix axis 'version' in job 'test'; the axes are 'os' and 'db'"])
  }

  @Test func aSubstitutionInAJobWithoutAMatrixIsAnError() {
    let text = """
      jobs:
        lint:
          command: echo ${{ matrix.os }}
      """
    #expect(problems(text) == ["m.yaml:3:14: error: '${{ matrix.os }}' in job 'lint', which has no 'matrix'"])
  }

  @Test func aSubstitutionInAKeyThatTakesNoneIsAnError() {
    let text = """
      name: ci-${{ matrix.os }}
      jobs:
        test:
          matrix: {os: [linux]}
          command: echo
          queue: ${{ matrix.os }}
      """
    let found = problems(text)
    let misplaced =
      "error: '${{ ... }}' is not replaced here: substitutions are made only in 'command', 'commands', "
      + "'completion', 'cwd', 'env' values, 'inputs', 'outputs', 'description' and 'dependencies' of a job"
    #expect(found.first == "m.yaml:1:7: " + misplaced)
    #expect(found.contains("m.yaml:6:12: " + misplaced), "\(found)")
  }

  @Test func anyOtherFormIsAnError() {
    let text = """
      jobs:
        test:
          matrix: {q: [a]}
          commands: [echo ok, "echo ${{ github.sha }}", "echo ${{ matrix.q"]
      """
    #expect(
      problems(text) == [
        "m.yaml:4:25: error: unsupported expression '${{ github.sha }}'; the only substitutions are '${{ matrix.AXIS }}' and '${{ vars.NAME }}'",
        "m.yaml:4:51: error: unsupported expression '${{ matrix.q'; the only substitutions are '${{ matrix.AXIS }}' and '${{ vars.NAME }}'",
      ])
  }

  @Test func aValueWithAForbiddenCharacterIsAnError() {
    let text = """
      jobs:
        test:
          matrix: {os: [linux, "mac os", "a,b", "x]"]}
          command: echo
      """
    let rule = "a matrix value holds no ',', '[', ']', blank or control character"
    #expect(
      problems(text) == [
        "m.yaml:3:26: error: value 'mac os' of axis 'os' holds a blank; \(rule)",
        "m.yaml:3:36: error: value 'a,b' of axis 'os' holds ','; \(rule)",
        "m.yaml:3:43: error: value 'x]' of axis 'os' holds ']'; \(rule)",
      ])
  }

  @Test func anEmptyValueAndAnEmptyAxisAreErrors() {
    let text = """
      jobs:
        test:
          matrix: {os: [""], db: []}
          command: echo
      """
    #expect(
      problems(text) == [
        "m.yaml:3:19: error: a value of axis 'os' must not be empty",
        "m.yaml:3:28: error: axis 'db' of job 'test' has no values",
      ])
  }

  @Test func aBadAxisNameAndAMatrixWithoutAxesAreErrors() {
    let text = """
      jobs:
        a:
          matrix: {9lives: [x]}
          command: echo
        b:
          matrix: {include: [], exclude: []}
          command: echo
      """
    #expect(
      problems(text) == [
        "m.yaml:3:14: error: bad axis name '9lives' in the matrix of job 'a': an axis name starts with a letter or '_' "
          + "and holds only letters, digits, '_' and '-'",
        "m.yaml:6:5: error: the matrix of job 'b' has no axis; give it one, as 'os: [linux, macos]'",
      ])
  }

  @Test func anIncludeThatMissesAnAxisIsAnError() {
    let text = """
      jobs:
        test:
          matrix:
            os: [linux]
            db: [sqlite]
            include: [{os: macos}]
          command: echo
      """
    #expect(
      problems(text) == [
        "m.yaml:6:17: error: this 'include' entry of job 'test' gives no value for axis 'db'; "
          + "an 'include' entry gives every axis a value"
      ])
  }

  @Test func anIncludeOrExcludeThatAddsAnUnknownAxisIsAnError() {
    let text = """
      jobs:
        test:
          matrix:
            os: [linux]
            db: [sqlite]
            include: [{os: macos, db: pg, dv: x}]
            exclude: [{cpu: arm}]
          command: echo
      """
    #expect(
      problems(text) == [
        "m.yaml:6:37: error: unknown axis 'dv' in an 'include' entry of job 'test' (did you mean 'db'?)",
        "m.yaml:7:18: error: unknown axis 'cpu' in an 'exclude' entry of job 'test'; the axes are 'os' and 'db'",
      ])
  }

  @Test func anExcludeThatMatchesNothingIsAWarningAndTheManifestRuns() throws {
    let text = """
      jobs:
        test:
          matrix:
            os: [linux, macos]
            exclude: [{os: windows}]
          command: echo
      """
    let graph = try ManifestLoader.graph(from: SourceText(path: "m.yaml", text: text), defaultMaxConcurrent: 1).get()
    #expect(graph.jobs.map(\.name) == ["test[linux]", "test[macos]"])
    #expect(
      graph.manifestWarnings.map(\.description) == [
        "m.yaml:5:17: warning: exclude {os: windows} of job 'test' matches no combination"
      ])
  }

  @Test func excludingEveryCombinationIsAnError() {
    let text = """
      jobs:
        test:
          matrix: {os: [linux], exclude: [{os: linux}]}
          command: echo
      """
    #expect(problems(text) == ["m.yaml:3:5: error: the 'exclude' entries of job 'test' leave out every combination"])
  }

  @Test func twoInstancesWithTheSameNameAreAnError() {
    let text = """
      jobs:
        a:
          matrix: {os: [linux, linux]}
          command: echo
        test:
          matrix:
            os: [linux, macos]
            include: [{os: macos}, {os: bsd}, {os: bsd}]
          command: echo
        "test[bsd]":
          command: echo
      """
    #expect(
      problems(text) == [
        "m.yaml:3:26: error: value 'linux' is listed twice in axis 'os' of job 'a' (first at line 3, column 19)",
        "m.yaml:8:17: error: this 'include' entry repeats instance 'test[macos]'",
        "m.yaml:8:41: error: this 'include' entry repeats instance 'test[bsd]'",
        "m.yaml:10:3: error: duplicate job 'test[bsd]'",
      ])
  }

  @Test func aDependencyOnAnInstanceThatDoesNotExistListsTheInstances() {
    let text = """
      jobs:
        build:
          matrix: {python: ["3.11", "3.12"]}
          command: echo
        test:
          matrix: {python: ["3.12", "3.13"]}
          command: echo
          dependencies: ["build[${{ matrix.python }}]"]
        docs:
          command: echo
          dependencies: ["build[3.10]"]
      """
    let unknown = "job 'build' has no such instance; its instances are 'build[3.11]' and 'build[3.12]'"
    #expect(
      problems(text) == [
        "m.yaml:8:20: error: unknown dependency 'build[3.13]' of job 'test[3.13]': \(unknown)",
        "m.yaml:11:20: error: unknown dependency 'build[3.10]' of job 'docs': \(unknown)",
      ])
  }

  @Test func namingAMatrixJobThatMadeNoInstanceAddsNoSecondError() {
    let text = """
      jobs:
        build:
          matrix: {python: []}
          command: echo
        test:
          command: echo
          dependencies: ["build[3.12]", build]
      """
    #expect(problems(text) == ["m.yaml:3:22: error: axis 'python' of job 'build' has no values"])
  }

  @Test func aMatrixOfTenBillionInstancesIsRefusedAtOnceAtItsKey() {
    let axes = (0..<10).map { "a\($0): [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]" }.joined(separator: ", ")
    let text = "jobs:\n  huge:\n    matrix: {\(axes)}\n    command: echo\n"
    let sizes = Array(repeating: "10", count: 10).joined(separator: " × ")
    #expect(
      problems(text) == [
        "m.yaml:3:5: error: the matrix of job 'huge' would make 10000000000 instances (\(sizes)); at most 100000 are allowed"
      ])
  }

  @Test func aMatrixWhoseSizeOverflowsIsRefused() {
    let axes = (0..<20).map { "a\($0): [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]" }.joined(separator: ", ")
    let found = problems("jobs:\n  huge:\n    matrix: {\(axes)}\n    command: echo\n")
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("m.yaml:3:5: error: the matrix of job 'huge' would make more than ") == true)
  }

  @Test func aManifestOfMoreThanAMillionJobsAfterExpansionIsRefusedAtTheMatrixThatCrossesTheLimit() {
    let axes = (0..<5).map { "a\($0): [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]" }.joined(separator: ", ")
    let jobs = (0..<11).map { "  j\($0):\n    matrix: {\(axes)}\n    command: echo\n" }.joined()
    #expect(
      problems("jobs:\n" + jobs) == [
        "m.yaml:33:5: error: with the 100000 instances of job 'j10' the manifest would hold more than 1000000 jobs; "
          + "at most 1000000 are allowed"
      ])
  }
}
