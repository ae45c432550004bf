import Testing

@testable import OprunCore

/// What a matrix job becomes (SPEC §11): ordinary jobs, one per instance, in the documented
/// order, with each value filled in, and names that mean one instance or all of them.
@Suite struct MatrixExpansionTests {
  private func graph(_ text: String) throws -> JobGraph {
    try ManifestLoader.graph(from: SourceText(path: "m.yaml", text: text), defaultMaxConcurrent: 1).get()
  }

  private let ci = """
    jobs:
      build:
        matrix: {python: ["3.10", "3.12"]}
        command: ./build.sh ${{ matrix.python }}
      test:
        matrix:
          python: ["3.10", "3.12"]
          db: [sqlite, postgres]
          exclude: [{python: "3.10", db: postgres}]
          include: [{python: "3.12", db: mysql}]
        command: tox -e py${{ matrix.python }}-${{matrix.db}}
        completion: echo done ${{ matrix.db }}
        cwd: work/${{ matrix.db }}
        env: {DB: "${{ matrix.db }}", FIXED: "1"}
        description: tests on ${{ matrix.python }}
        dependencies: ["build[${{ matrix.python }}]"]
      report:
        command: ./report.sh
        dependencies: [test]
    """

  @Test func instancesFollowTheProductWithoutExcludedThenIncludedInManifestOrder() throws {
    #expect(
      try graph(ci).jobs.map(\.name) == [
        "build[3.10]", "build[3.12]", "test[3.10,sqlite]", "test[3.12,sqlite]", "test[3.12,postgres]",
        "test[3.12,mysql]", "report",
      ])
  }

  @Test func everyValueIsFilledInAsWritten() throws {
    let graph = try graph(ci)
    let test = graph.jobs[5]
    #expect(test.commands == ["tox -e py3.12-mysql"])
    #expect(test.completion == "echo done mysql")
    #expect(test.writtenCwd == "work/mysql")
    #expect(test.env == [EnvironmentEntry("DB", "mysql"), EnvironmentEntry("FIXED", "1")])
    #expect(graph.manifest.jobs[5].description == "tests on 3.12")
    #expect(graph.jobs[0].commands == ["./build.sh 3.10"])
    #expect(test.instance == MatrixInstance(template: "test", axes: ["python", "db"], values: ["3.12", "mysql"]))
  }

  @Test func aSubstitutedDependencyNamesOneInstanceAndAPlainNameAllOfThem() throws {
    let graph = try graph(ci)
    let names = { (job: JobNode) in job.dependencies.map { graph.jobs[$0].name } }
    #expect(names(graph.jobs[2]) == ["build[3.10]"])
    #expect(names(graph.jobs[3]) == ["build[3.12]"])
    #expect(
      names(graph.jobs[6]) == ["test[3.10,sqlite]", "test[3.12,sqlite]", "test[3.12,postgres]", "test[3.12,mysql]"])
  }

  @Test func aPlainNameSelectsEveryInstanceAndABracketedNameOneWithItsClosure() throws {
    let graph = try graph(ci)
    #expect(
      try graph.restricted(to: ["test"]).jobs.map(\.name) == [
        "build[3.10]", "build[3.12]", "test[3.10,sqlite]", "test[3.12,sqlite]", "test[3.12,postgres]",
        "test[3.12,mysql]",
      ])
    #expect(try graph.restricted(to: ["test[3.12,sqlite]"]).jobs.map(\.name) == ["build[3.12]", "test[3.12,sqlite]"])
  }

  @Test func anUnknownInstanceOnTheCommandLineListsTheInstances() throws {
    let graph = try graph(ci)
    #expect(throws: TargetError.self) { try graph.restricted(to: ["build[3.11]"]) }
    do {
      _ = try graph.restricted(to: ["build[3.11]"])
    } catch {
      #expect(
        error.description
          == "unknown job 'build[3.11]': job 'build' has no such instance; its instances are 'build[3.10]' and 'build[3.12]'"
      )
    }
  }

  @Test func aValueKeepsItsTextAsWritten() throws {
    let graph = try graph("jobs:\n  t:\n    matrix: {v: [3.10, 1e3, 010, 'yes']}\n    command: echo ${{ matrix.v }}\n")
    #expect(graph.jobs.map(\.name) == ["t[3.10]", "t[1e3]", "t[010]", "t[yes]"])
    #expect(graph.jobs.map(\.commands) == [["echo 3.10"], ["echo 1e3"], ["echo 010"], ["echo yes"]])
  }

  @Test func theFirstAxisVariesSlowest() throws {
    let graph = try graph("jobs:\n  t:\n    matrix: {a: [1, 2], b: [x, y, z]}\n    command: echo\n")
    #expect(graph.jobs.map(\.name) == ["t[1,x]", "t[1,y]", "t[1,z]", "t[2,x]", "t[2,y]", "t[2,z]"])
  }

  @Test func anIncludeMayBringBackAnExcludedCombination() throws {
    let text = """
      jobs:
        t:
          matrix: {a: [1, 2], exclude: [{a: 1}], include: [{a: 1}]}
          command: echo
      """
    #expect(try graph(text).jobs.map(\.name) == ["t[2]", "t[1]"])
  }

  @Test func aHundredMatrixJobsOfAThousandInstancesEachExpandWithTheirOwnDependencies() throws {
    let axes =
      "matrix: {a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], c: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}"
    var text = "jobs:\n  j0:\n    \(axes)\n    command: echo ${{ matrix.a }}\n"
    for index in 1..<100 {
      text += "  j\(index):\n    \(axes)\n    command: echo\n"
      text += "    dependencies: [\"j\(index - 1)[${{ matrix.a }},${{ matrix.b }},${{ matrix.c }}]\"]\n"
    }
    let graph = try graph(text)
    #expect(graph.jobs.count == 100_000)
    #expect(graph.jobs[99_999].name == "j99[9,9,9]")
    #expect(graph.jobs[99_999].dependencies == [98_999])
  }
}

/// `exclude` (SPEC §11): an entry leaves out every combination that has all the values it
/// names, whichever axes it names, however many entries there are.
@Suite struct MatrixExcludeTests {
  private func graph(_ text: String) throws -> JobGraph {
    try ManifestLoader.graph(from: SourceText(path: "m.yaml", text: text), defaultMaxConcurrent: 1).get()
  }

  @Test func anEntryThatNamesSomeAxesLeavesOutEveryCombinationWithThoseValues() throws {
    let text = """
      jobs:
        t:
          matrix:
            a: [1, 2, 3]
            b: [x, y]
            c: [p, q]
            exclude: [{b: x}, {a: 3, c: q}, {c: p, a: 1}]
          command: echo
      """
    #expect(try graph(text).jobs.map(\.name) == ["t[1,y,q]", "t[2,y,p]", "t[2,y,q]", "t[3,y,p]"])
  }

  @Test func onlyTheEntriesThatMatchNothingAreWarnedAboutWrittenTwiceOrNot() throws {
    let text = """
      jobs:
        t:
          matrix:
            a: [1, 2]
            b: [x, y]
            exclude: [{a: 1, b: x}, {b: z}, {a: 1, b: x}, {a: 2}, {a: 2}, {b: y, a: 3}]
          command: echo
      """
    let graph = try graph(text)
    #expect(graph.jobs.map(\.name) == ["t[1,y]"])
    #expect(
      graph.manifestWarnings.map(\.description) == [
        "m.yaml:6:31: warning: exclude {b: z} of job 't' matches no combination",
        "m.yaml:6:69: warning: exclude {b: y, a: 3} of job 't' matches no combination",
      ])
  }

  @Test func anIncludeOfAnExcludedCombinationAddsItAtTheEndAndRepeatsNothing() throws {
    let text = { (include: String) in
      """
      jobs:
        t:
          matrix:
            a: [1, 2]
            b: [x, y]
            exclude: [{b: x}]
            include: [\(include)]
          command: echo
      """
    }
    #expect(try graph(text("{a: 1, b: x}")).jobs.map(\.name) == ["t[1,y]", "t[2,y]", "t[1,x]"])
    guard
      case .failure(let errors) = ManifestLoader.graph(
        from: SourceText(path: "m.yaml", text: text("{a: 1, b: x}, {a: 2, b: y}")), defaultMaxConcurrent: 1)
    else {
      Issue.record("an include of an instance the product makes was accepted")
      return
    }
    #expect(
      errors.diagnostics.map(\.description) == ["m.yaml:7:31: error: this 'include' entry repeats instance 't[2,y]'"])
  }

  @Test func aHundredThousandInstancesLessSixtyFourThousandExcludedKeepTheRestInOrder() throws {
    var text = "jobs:\n  t:\n    matrix:\n"
    text += "      a: [\((0..<100).map(String.init).joined(separator: ", "))]\n"
    text += "      b: [\((0..<1000).map(String.init).joined(separator: ", "))]\n"
    text += "      exclude:\n"
    for a in 0..<64 {
      for b in 0..<1000 { text += "        - {a: \(a), b: \(b)}\n" }
    }
    text += "        - {a: 99, b: 1000}\n"
    text += "    command: echo\n"
    let graph = try graph(text)
    #expect(graph.jobs.count == 36_000)
    #expect(graph.jobs.first?.name == "t[64,0]")
    #expect(graph.jobs.last?.name == "t[99,999]")
    #expect(
      graph.manifestWarnings.map(\.description) == [
        "m.yaml:64007:11: warning: exclude {a: 99, b: 1000} of job 't' matches no combination"
      ])
  }
}
