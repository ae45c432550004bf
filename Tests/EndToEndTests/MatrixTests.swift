import Foundation
import Testing

/// One job, many instances (SPEC §11), run by the built binary and checked on the event stream.
@Suite struct MatrixTests {
  /// A 2 × 3 matrix less one `exclude` plus one `include`, each instance writing what its
  /// command, `env`, `cwd` and completion were given; `report` waits for all of `test`.
  private let ci = """
    max-concurrent: 2
    jobs:
      build:
        matrix: {python: ["3.10", "3.12", "3.13"]}
        command: echo built > build-${{ matrix.python }}
      test:
        matrix:
          python: ["3.10", "3.12"]
          db: [sqlite, postgres, mysql]
          exclude: [{python: "3.10", db: mysql}]
          include: [{python: "3.13", db: sqlite}]
        command: echo "py${{ matrix.python }} $DB_NAME $(basename "$PWD")" > ../../out/${{ matrix.python }}-${{ matrix.db }}
        env: {DB_NAME: "db-${{ matrix.db }}"}
        cwd: dirs/${{ matrix.db }}
        completion: touch ../../out/${{ matrix.python }}-${{ matrix.db }}.completed
        dependencies: ["build[${{ matrix.python }}]"]
      report:
        command: "true"
        dependencies: [test]
    """

  private let instances = [
    ("3.10", "sqlite"), ("3.10", "postgres"), ("3.12", "sqlite"), ("3.12", "postgres"), ("3.12", "mysql"),
    ("3.13", "sqlite"),
  ]

  private func ciFolder() throws -> Scratch {
    let folder = try Scratch()
    try folder.manifest(ci)
    for db in ["sqlite", "postgres", "mysql"] {
      try FileManager.default.createDirectory(atPath: folder.path("dirs/\(db)"), withIntermediateDirectories: true)
    }
    try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: true)
    return folder
  }

  @Test func aTwoByThreeMatrixWithAnExcludeAndAnIncludeRunsExactlyItsInstancesWithEveryValueFilledIn() throws {
    let folder = try ciFolder()
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    expectStreamContract(log)
    let testNames = instances.map { "test[\($0),\($1)]" }
    #expect(log.order(of: "finished").filter { $0.hasPrefix("test[") }.sorted() == testNames.sorted())
    for (python, db) in instances {
      #expect(folder.read("out/\(python)-\(db)") == "py\(python) db-\(db) \(db)\n", "\(python)-\(db)")
      #expect(folder.exists("out/\(python)-\(db).completed"), "\(python)-\(db)")
    }
    #expect(!folder.exists("out/3.10-mysql") && !folder.exists("out/3.1-sqlite"))
    #expect(folder.exists("build-3.10"), "3.10 stays 3.10")
    let finish = try #require(log.finish(of: "test[3.12,mysql]"))
    #expect(finish.string("template") == "test")
    #expect(finish["matrix"] as? [String: String] == ["python": "3.12", "db": "mysql"])
    #expect(log.finish(of: "report")?["template"] == nil)
  }

  @Test func aJobThatDependsOnThePlainNameWaitsForEveryInstance() throws {
    let folder = try ciFolder()
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    let reportReady = try #require(log.index(of: "report", to: "ready"))
    for (python, db) in instances {
      let finished = try #require(log.index(of: "test[\(python),\(db)]", to: "finished"))
      #expect(finished < reportReady, "report went ready before test[\(python),\(db)] finished")
    }
  }

  @Test func anInstanceWaitsForTheInstanceItsSubstitutedDependencyNames() throws {
    let folder = try ciFolder()
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let log = folder.events
    for (python, db) in instances {
      let job = "test[\(python),\(db)]"
      let ready = try #require(log.transitions(of: job, to: "ready").first)
      #expect(ready.string("after") == "build[\(python)]", "\(job)")
      let built = try #require(log.index(of: "build[\(python)]", to: "finished"))
      #expect(built < (try #require(log.index(of: job, to: "ready"))))
    }
  }

  @Test func instancesOnASerialQueueStartInTheDocumentedOrder() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 1
      jobs:
        first: {command: "true"}
        t:
          matrix: {a: [2, 1], b: [y, x], exclude: [{a: 1, b: y}], include: [{a: 0, b: z}]}
          command: "true"
        last: {command: "true"}
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.events.order(of: "executing") == ["first", "t[2,y]", "t[2,x]", "t[1,x]", "t[0,z]", "last"])
  }

  @Test func thePlainNameSelectsEveryInstanceAndTheBracketedNameOneAndItsClosure() throws {
    let folder = try ciFolder()
    let all = try runOprun(runArguments(["test"]), in: folder)
    #expect(all.status == 0, "\(all.stderr)")
    let everyTest = folder.events.order(of: "finished")
    #expect(everyTest.filter { $0.hasPrefix("test[") }.count == 6)
    #expect(everyTest.filter { $0.hasPrefix("build[") }.count == 3)
    #expect(!everyTest.contains("report"))

    let one = try runOprun(runArguments(["test[3.12,sqlite]"]), in: folder)
    #expect(one.status == 0, "\(one.stderr)")
    #expect(folder.events.order(of: "finished") == ["build[3.12]", "test[3.12,sqlite]"])
  }

  @Test func anUnknownInstanceOnTheCommandLineIsAUsageErrorListingTheInstances() throws {
    let folder = try ciFolder()
    let run = try runOprun(runArguments(["build[3.11]"]), in: folder)
    #expect(run.status == 2)
    #expect(
      run.stderr.contains(
        "unknown job 'build[3.11]': job 'build' has no such instance; "
          + "its instances are 'build[3.10]', 'build[3.12]' and 'build[3.13]'"), "\(run.stderr)")
  }

  @Test func graphOfThePlainNameDrawsEachMatrixJobAsAClusterGraphvizAndMermaidRead() throws {
    let folder = try ciFolder()
    let drawn = try drawWithGraphviz(try GraphTests.graph(["jobs.yaml", "test"], in: folder), in: folder)
    #expect(
      drawn.clusters.map { $0.texts } == [["jobs · max-concurrent 2"], ["build · 3 instances"], ["test · 6 instances"]])
    #expect(drawn.nodes.count == 9 && drawn.node(named: "report") == nil)
    #expect(drawn.edges.count == 6)

    let mermaid = try GraphTests.graph(["jobs.yaml", "--format", "mermaid"], in: folder)
    let parsed = try ParsedMermaid.read(mermaid, in: folder)
    #expect(parsed.error == nil, "mermaid refused the text: \(parsed.error ?? "")")
    #expect(parsed.titles["m0"] == "build · 3 instances" && parsed.titles["m1"] == "test · 6 instances")
    let names = parsed.labels.mapValues { $0.components(separatedBy: "\n")[0] }
    let tests = parsed.subgraphs.first { $0.id == "m1" }?.nodes.compactMap { names[$0] }.sorted()
    #expect(tests == instances.map { "test[\($0),\($1)]" }.sorted())
  }

  @Test func cancellingThePlainNameCancelsEveryInstance() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 1
      jobs:
        gate: {command: "\(waitFor("go"))"}
        t:
          matrix: {v: [a, b, c]}
          command: touch ran-${{ matrix.v }}
        other: {command: touch ran-other}
      """)
    let run = try scene.startRun()
    try waitUntil("gate executing") { run.log.executed("gate") }
    try scene.steer(["cancel", "t"])
    scene.folder.touch("go")
    let finished = run.process.wait()
    #expect(finished.status == 1, "\(finished.stderr)")
    let log = run.log
    for value in ["a", "b", "c"] {
      #expect(log.outcome(of: "t[\(value)]") == "cancelled")
      #expect(log.cancelReason(of: "t[\(value)]") == "control")
      #expect(!scene.folder.exists("ran-\(value)"))
    }
    #expect(log.outcome(of: "other") == "succeeded")
  }

  @Test func resumeSkipsTheInstancesThatSucceededAndRunsTheOneThatFailed() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        t:
          matrix: {v: [good, bad, fine]}
          command: test -e fixed || test ${{ matrix.v }} != bad
      """)
    let first = try runOprun(runArguments(["-k"]), in: folder)
    #expect(first.status == 1)
    #expect(folder.events.outcome(of: "t[bad]") == "failed")
    folder.touch("fixed")
    let resumed = try runOprun(runArguments(["--resume"]), in: folder)
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let log = folder.events
    #expect(log.finish(of: "t[good]")?["resumed"] as? Bool == true)
    #expect(log.finish(of: "t[fine]")?["resumed"] as? Bool == true)
    #expect(log.executed("t[bad]") && log.outcome(of: "t[bad]") == "succeeded")
    #expect(!log.executed("t[good]") && !log.executed("t[fine]"))
  }
}
