import OprunCore
import Testing

/// `inputs` and `outputs` (SPEC §10): each pattern is checked where it is written.
@Suite struct FilePatternDiagnosticsTests {
  private func problems(_ text: String) -> [String] {
    let source = SourceText(path: "m.yaml", text: text)
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else { return [] }
    return errors.diagnostics.map(\.description)
  }

  @Test func validPatternsReachTheGraphInOrder() throws {
    let text = """
      jobs:
        build: {command: make, inputs: ["src/**/*.c", "include/", "!src/**/*_test.c"], outputs: [app]}
        lint: {command: lint}
      """
    let graph = try ManifestLoader.graph(from: SourceText(path: "m.yaml", text: text), defaultMaxConcurrent: 1).get()
    let build = graph.jobs[0]
    #expect(build.inputs.map(\.text) == ["src/**/*.c", "include/", "!src/**/*_test.c"])
    #expect(build.inputs.map(\.isExclusion) == [false, false, true])
    #expect(build.outputs.map(\.body) == ["app"])
    #expect(build.tracksFiles)
    #expect(!graph.jobs[1].tracksFiles)
  }

  @Test(arguments: [
    ("\"\"", "m.yaml:2:35: error: an empty path pattern in 'inputs'"),
    ("\"src/[ab.c\"", "m.yaml:2:35: error: a '[' that is never closed in 'inputs'"),
    ("\"!\"", "m.yaml:2:35: error: a pattern that is only '!' in 'inputs'"),
    ("\"a\\0b\"", "m.yaml:2:35: error: a string holds a NUL character ('\\0'), which no command, name or value can hold"),
  ])
  func aBadPatternIsReportedAtItsScalar(pattern: String, message: String) {
    let text = """
      jobs:
        build: {command: make, inputs: [\(pattern)]}
      """
    #expect(problems(text) == [message])
  }

  @Test func aListIsRequiredAndEveryItemIsAPath() {
    let text = """
      jobs:
        build: {command: make, outputs: app}
        test: {command: make, inputs: [{a: b}]}
      """
    #expect(
      problems(text) == [
        "m.yaml:2:35: error: expected a list of paths and patterns, found a string",
        "m.yaml:3:34: error: expected a path or pattern, found a mapping",
      ])
  }

  @Test func matrixValuesAreSubstitutedInInputsAndOutputs() throws {
    let text = """
      jobs:
        build:
          matrix: {arch: [x86, arm]}
          command: make ARCH=${{ matrix.arch }}
          inputs: ["src/${{ matrix.arch }}/**"]
          outputs: ["out/${{ matrix.arch }}/app"]
      """
    let graph = try ManifestLoader.graph(from: SourceText(path: "m.yaml", text: text), defaultMaxConcurrent: 1).get()
    #expect(graph.jobs.map { $0.inputs.map(\.text) } == [["src/x86/**"], ["src/arm/**"]])
    #expect(graph.jobs.map { $0.outputs.map(\.text) } == [["out/x86/app"], ["out/arm/app"]])
  }
}
