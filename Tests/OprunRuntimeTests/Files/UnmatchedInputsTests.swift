import OprunCore
import Testing

@testable import OprunRuntime

/// `oprun check`'s word on an input pattern that matches no file (SPEC §10): said of a job
/// that waits for no other job, where it holds when the job runs; never of one that may read
/// what its dependencies write.
@Suite struct UnmatchedInputsTests {
  private func warnings(_ manifest: String, in tree: FileTree) throws -> [String] {
    let text = SourceText(path: tree.path("jobs.yaml"), text: manifest)
    let graph = try ManifestLoader.graph(from: text, defaultMaxConcurrent: 1).get()
    return UnmatchedInputs.warningLines(in: graph).map { $0.replacingPrefix(tree.root + "/", with: "") }
  }

  @Test func aPatternThatMatchesNoFileIsNamedWithItsJobAndPlace() throws {
    let tree = try FileTree()
    tree.write("src/a.c")
    let manifest = """
      jobs:
        build: {command: make, inputs: ["src/*.c", "src/*.h", "!src/*.o", include/]}
      """
    #expect(
      try warnings(manifest, in: tree) == [
        "jobs.yaml:2:46: input 'src/*.h' of job 'build' matches no file",
        "jobs.yaml:2:69: input 'include/' of job 'build' matches no file",
      ])
  }

  @Test func aBracketIsExplainedWithThePatternThatNamesIt() throws {
    let tree = try FileTree()
    tree.write("data[1].csv")
    let manifest = "jobs:\n  load: {command: ./load.sh, inputs: [\"data[1].csv\", 'data\\[1\\].csv']}\n"
    #expect(
      try warnings(manifest, in: tree) == [
        "jobs.yaml:2:39: input 'data[1].csv' of job 'load' matches no file; '[...]' matches one character of a set: "
          + "write 'data\\[1\\].csv' for a name with brackets"
      ])
  }

  @Test func aJobThatWaitsForAnotherIsNotWarnedAbout() throws {
    let tree = try FileTree()
    let manifest = """
      jobs:
        gen: {command: echo > gen.txt}
        use: {command: cat gen.txt, dependencies: [gen], inputs: [gen.txt]}
        after: {command: 'true', barrier: true, inputs: [missing.txt]}
      """
    #expect(try warnings(manifest, in: tree) == [])
  }
}

extension String {
  fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
    hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
  }
}

@Suite struct UnmatchedInputsOfInstancesTests {
  @Test func theInstancesOfAMatrixJobShareAWarningWhenTheyMatchFromOneFolder() throws {
    let tree = try FileTree()
    tree.write("x86/src/a.c")
    let manifest = """
      jobs:
        build:
          matrix: {arch: [x86, arm, riscv]}
          command: make
          inputs: ["src/*.h", "${{ matrix.arch }}/src/*.c"]
      """
    let text = SourceText(path: tree.path("jobs.yaml"), text: manifest)
    let graph = try ManifestLoader.graph(from: text, defaultMaxConcurrent: 1).get()
    #expect(
      UnmatchedInputs.warnings(in: graph).map(\.message) == [
        "input 'src/*.h' of job 'build' (3 instances) matches no file",
        "input 'arm/src/*.c' of job 'build[arm]' matches no file",
        "input 'riscv/src/*.c' of job 'build[riscv]' matches no file",
      ])
  }
}
