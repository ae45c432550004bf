import OprunCore
import Testing

/// `inputs` and `outputs` no run could honour (SPEC §10): a file two jobs write, and a
/// pattern inside `.oprun/`, are manifest errors where the second or the pattern is written.
@Suite struct FilePathClashTests {
  private func problems(_ text: String) -> [String] {
    let source = SourceText(path: "jobs.yaml", text: text)
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else { return [] }
    return errors.diagnostics.map(\.description)
  }

  @Test func twoJobsDeclaringOneOutputIsAnErrorAtTheSecond() {
    let text = """
      jobs:
        a: {command: echo a > out.txt, outputs: [out.txt]}
        b: {command: echo b > out.txt, outputs: [log.txt, out.txt]}
      """
    #expect(problems(text) == ["jobs.yaml:3:53: error: output 'out.txt' of job 'b' is also an output of job 'a'"])
  }

  @Test func outputsAreComparedAfterTheirCwdAndDotsAreResolved() {
    let text = """
      cwd: work
      jobs:
        a: {command: make, outputs: [./build//app]}
        b: {command: make, cwd: sub, outputs: [../build/app]}
        c: {command: make, cwd: sub, outputs: [app]}
        d: {command: make, outputs: [sub/app/]}
      """
    #expect(
      problems(text) == [
        "jobs.yaml:4:42: error: output '../build/app' of job 'b' is also an output of job 'a' (as './build//app')",
        "jobs.yaml:6:32: error: output 'sub/app/' of job 'd' is also an output of job 'c' (as 'app')",
      ])
  }

  @Test func anOutputUnderAnotherJobsFolderIsAnErrorWhicheverComesFirst() {
    let text = """
      jobs:
        a: {command: make, outputs: [dist/]}
        b: {command: make, outputs: [dist/app/bin]}
        c: {command: make, outputs: [docs/html/index.html]}
        d: {command: make, outputs: [docs]}
      """
    #expect(
      problems(text) == [
        "jobs.yaml:3:32: error: output 'dist/app/bin' of job 'b' lies under output 'dist/' of job 'a'",
        "jobs.yaml:5:32: error: output 'docs' of job 'd' holds output 'docs/html/index.html' of job 'c'",
      ])
  }

  @Test func patternsOtherFoldersRemovalsAndOneJobsOwnOutputsAreNotCompared() {
    let text = """
      jobs:
        a: {command: make, outputs: [out/*.o, lib/, "!lib/b.a", app, app]}
        b: {command: make, outputs: [out/*.o, out/b.o, lib/b.a, apps, ../app, /app]}
        c: {command: make, outputs: [out/c.o]}
      """
    #expect(problems(text) == [])
  }

  @Test func instancesOfAMatrixJobThatWriteOneFileClashOnceAtTheirPattern() {
    let text = """
      jobs:
        t:
          matrix: {os: [linux, macos, bsd]}
          command: make
          outputs: [report.txt, "out/${{ matrix.os }}"]
      """
    #expect(
      problems(text) == [
        "jobs.yaml:5:15: error: output 'report.txt' of job 't[macos]' is also an output of job 't[linux]'"
      ])
  }

  @Test func aPatternThatCanOnlyMatchInsideTheStateFolderIsAnError() {
    let text = """
      jobs:
        a: {command: make, outputs: [.oprun]}
        b: {command: make, inputs: [".oprun/runs/*.ndjson", "!.oprun/**"], outputs: [./x/../.oprun/log]}
        c: {command: make, cwd: .oprun, inputs: [hashes]}
        d: {command: make, inputs: ["**/*.c", ".oprunrc", sub/.oprun/x]}
      """
    #expect(
      problems(text) == [
        "jobs.yaml:2:32: error: output '.oprun' of job 'a' lies inside '.oprun/', which oprun keeps for its records; it would never be found",
        "jobs.yaml:3:31: error: input '.oprun/runs/*.ndjson' of job 'b' lies inside '.oprun/', which is never an input",
        "jobs.yaml:3:80: error: output './x/../.oprun/log' of job 'b' lies inside '.oprun/', which oprun keeps for its records; it would never be found",
        "jobs.yaml:4:44: error: input 'hashes' of job 'c' lies inside '.oprun/', which is never an input",
      ])
  }

  @Test func anEmptyListDeclaresThatTheJobDependsOnNoFile() throws {
    let text = """
      jobs:
        setup: {command: ./setup.sh, inputs: []}
        other: {command: ./other.sh, outputs: []}
        plain: {command: ./plain.sh}
        unset: {command: ./unset.sh, inputs: null}
      """
    let graph = try ManifestLoader.graph(from: SourceText(path: "jobs.yaml", text: text), defaultMaxConcurrent: 1).get()
    #expect(graph.jobs.map(\.tracksFiles) == [true, true, false, false])
  }
}
