import OprunCore
import Testing

/// `JobGraph(manifest:defaultMaxConcurrent:)`: names resolved, defaults applied, barriers
/// turned into edges, problems reported.
@Suite struct GraphBuildTests {
  private func graph(_ yaml: String, path: String = "jobs.yaml", defaultMaxConcurrent: Int = 4) throws -> JobGraph {
    try ManifestLoader.graph(from: SourceText(path: path, text: yaml), defaultMaxConcurrent: defaultMaxConcurrent).get()
  }

  private func dependencies(_ graph: JobGraph) -> [String: [String]] {
    Dictionary(uniqueKeysWithValues: graph.jobs.map { job in (job.name, job.dependencies.map { graph.jobs[$0].name }) })
  }

  @Test func theMainQueueIsFirstAndNamedAfterTheFileStem() throws {
    let graph = try graph(
      """
      queues:
        network: {max-concurrent: 2, qos: utility}
        disk:
      jobs:
        a: {command: x, queue: network}
        b: {command: x, queue: ci}
        c: {command: x}
      """, path: "tools/ci.yaml")
    #expect(
      graph.queues == [
        QueueNode(name: "ci", maxConcurrent: 4), QueueNode(name: "network", maxConcurrent: 2, qos: .utility),
        QueueNode(name: "disk", maxConcurrent: 4),
      ])
    #expect(graph.jobs.map(\.queue) == [1, 0, 0])
    #expect(graph.jobs.map(\.id) == [0, 1, 2])
  }

  @Test func theManifestsMaxConcurrentWinsOverTheDefaultAndZeroBecomesOne() throws {
    #expect(try graph("max-concurrent: 1\njobs: {a: {command: x}}").queues[0].maxConcurrent == 1)
    #expect(try graph("jobs: {a: {command: x}}", defaultMaxConcurrent: 0).queues[0].maxConcurrent == 1)
  }

  @Test func defaultsApplyUnlessTheJobSetsItsOwn() throws {
    let graph = try graph(
      """
      defaults: {priority: high, qos: utility, timeout: 1m, retries: 2}
      jobs:
        plain: {command: x}
        own: {command: x, priority: low, qos: background, timeout: 2s, retries: 0}
      """)
    let (plain, own) = (graph.jobs[0], graph.jobs[1])
    #expect(plain.explicitPriority == .high)
    #expect(plain.qos == .utility)
    #expect(plain.timeout == 60)
    #expect(plain.retries == 2)
    #expect(own.explicitPriority == .low)
    #expect(own.qos == .background)
    #expect(own.timeout == 2)
    #expect(own.retries == 0)
  }

  @Test func qosFallsBackToTheQueueThenDefaultsThenDefault() throws {
    let withDefaults = try graph(
      """
      defaults: {qos: utility}
      queues: {ui: {qos: userInteractive}}
      jobs: {a: {command: x, queue: ui}, b: {command: x}}
      """)
    #expect(withDefaults.jobs.map(\.qos) == [.userInteractive, .utility])
    let withoutDefaults = try graph(
      """
      queues: {ui: {qos: userInteractive}}
      jobs: {a: {command: x, queue: ui}, b: {command: x}}
      """)
    #expect(withoutDefaults.jobs.map(\.qos) == [.userInteractive, .default])
    #expect(withoutDefaults.jobs.map(\.explicitPriority) == [nil, nil])
    #expect(withoutDefaults.jobs.map(\.retries) == [0, 0])
  }

  @Test func aJobsEnvironmentOverridesTheManifestsByName() throws {
    let graph = try graph(
      """
      env: {CC: clang, MODE: release}
      jobs:
        a: {command: x, env: {CC: gcc, EXTRA: "1"}}
        b: {command: x}
      """)
    #expect(
      graph.jobs[0].env == [
        EnvironmentEntry("MODE", "release"), EnvironmentEntry("CC", "gcc"), EnvironmentEntry("EXTRA", "1"),
      ])
    #expect(graph.jobs[1].env == [EnvironmentEntry("CC", "clang"), EnvironmentEntry("MODE", "release")])
  }

  @Test func workingDirectoriesAreTakenFromTheManifestsDirectory() throws {
    let yaml = """
      cwd: build
      jobs:
        a: {command: x}
        b: {command: x, cwd: src}
        c: {command: x, cwd: /tmp}
      """
    #expect(try graph(yaml, path: "jobs/demo.yaml").jobs.map(\.cwd) == ["jobs/build", "jobs/build/src", "/tmp"])
    #expect(try graph(yaml, path: "demo.yaml").jobs.map(\.cwd) == ["build", "build/src", "/tmp"])
    #expect(try graph("jobs: {a: {command: x}}", path: "jobs/demo.yaml").jobs[0].cwd == nil)
    #expect(try graph("cwd: .\njobs: {a: {command: x}}", path: "/srv/jobs.yaml").jobs[0].cwd == "/srv")
  }

  @Test func dependenciesAreDeduplicatedAndDependentsAreInManifestOrder() throws {
    let graph = try graph(
      """
      jobs:
        a: {command: x}
        b: {command: x, dependencies: [a, a]}
        c: {command: x, dependencies: [b, a]}
      """)
    #expect(graph.jobs.map(\.dependencies) == [[], [0], [1, 0]])
    #expect(graph.jobs.map(\.dependents) == [[1, 2], [2], []])
  }

  @Test func aBarrierWaitsForTheJobsBeforeItInItsQueueAndTheJobsAfterItWaitForIt() throws {
    let graph = try graph(
      """
      queues: {other: {}}
      jobs:
        a: {command: x}
        b: {command: x}
        elsewhere: {command: x, queue: other}
        gate: {command: x, barrier: true}
        c: {command: x, dependencies: [a]}
        gate2: {command: x, barrier: true}
        d: {command: x}
        later: {command: x, queue: other}
      """)
    #expect(
      dependencies(graph) == [
        "a": [], "b": [], "elsewhere": [], "gate": ["a", "b"], "c": ["a", "gate"], "gate2": ["c", "gate"],
        "d": ["gate2"], "later": [],
      ])
    #expect(graph.jobs[3].barrier)
    #expect(graph.jobs[3].dependents == [4, 5])
  }

  @Test func aBarrierFirstInItsQueueWaitsForNothing() throws {
    let graph = try graph("jobs: {gate: {command: x, barrier: true}, a: {command: x}}")
    #expect(dependencies(graph) == ["gate": [], "a": ["gate"]])
  }

  @Test func aChainOfOneHundredThousandJobsIsBuiltWithoutRecursion() throws {
    let count = 100_000
    var jobs = [JobSpec(name: "j0", location: .init(file: "chain.yaml", line: 1, column: 1), commands: ["x"])]
    for index in 1..<count {
      let location = ManifestLocation(file: "chain.yaml", line: index + 1, column: 1)
      jobs.append(
        JobSpec(
          name: "j\(index)", location: location, commands: ["x"], dependencies: [Located("j\(index - 1)", at: location)]
        ))
    }
    let graph = try JobGraph(manifest: Manifest(path: "chain.yaml", name: "chain", jobs: jobs), defaultMaxConcurrent: 1)
    #expect(graph.jobs.count == count)
    #expect(graph.jobs[count - 1].dependencies == [count - 2])
    #expect(graph.jobs[0].dependents == [1])
  }

  @Test func aRingOfOneHundredThousandJobsIsOneCycle() {
    let count = 100_000
    let jobs = (0..<count).map { index in
      let location = ManifestLocation(file: "ring.yaml", line: index + 1, column: 1)
      return JobSpec(
        name: "j\(index)", location: location, commands: ["x"],
        dependencies: [Located("j\((index + 1) % count)", at: location)])
    }
    #expect {
      try JobGraph(manifest: Manifest(path: "ring.yaml", name: "ring", jobs: jobs), defaultMaxConcurrent: 1)
    } throws: { error in
      let diagnostics = (error as? ManifestErrors)?.diagnostics ?? []
      return diagnostics.count == 1 && diagnostics[0].message.hasPrefix("dependency cycle: j0 -> j1 -> j2 -> ")
        && diagnostics[0].message.hasSuffix(" -> j99999 -> j0") && diagnostics[0].location?.line == 1
    }
  }

  @Test func everyCycleOfATangleIsListedOnceStartingAtItsEarliestJob() {
    #expect(
      manifestMessages(
        """
        jobs:
          a: {command: x, dependencies: [b, c]}
          b: {command: x, dependencies: [a]}
          c: {command: x, dependencies: [a, d]}
          d: {command: x, dependencies: [c]}
          free: {command: x, dependencies: [d]}
        """) == [
          "jobs.yaml:2:3: error: dependency cycle: a -> b -> a",
          "jobs.yaml:2:3: error: dependency cycle: a -> c -> a",
          "jobs.yaml:4:3: error: dependency cycle: c -> d -> c",
        ])
  }

  @Test func aDenseTangleListsTenCyclesAndSaysThereAreMore() {
    let names = (0..<30).map { "j\($0)" }
    let jobs = names.map { name in
      "  \(name): {command: x, dependencies: [\(names.filter { $0 != name }.joined(separator: ", "))]}"
    }
    let found = manifestMessages("jobs:\n" + jobs.joined(separator: "\n"))
    #expect(found.filter { $0.contains("error: dependency cycle: ") }.count == 10)
    #expect(found.last == "jobs.yaml:13:3: error: job 'j11' is part of further dependency cycles (not all are listed)")
  }

  @Test func decodingAndGraphProblemsAreReportedInOnePass() {
    #expect(
      manifestMessages(
        """
        jobs:
          a: {command: x, priority: urgent, dependencies: [b]}
          b: {command: x, dependencies: [a, c]}
        """) == [
          "jobs.yaml:2:3: error: dependency cycle: a -> b -> a",
          "jobs.yaml:2:29: error: unknown priority 'urgent'; expected veryLow, low, normal, high or veryHigh (or -8, -4, 0, 4, 8)",
          "jobs.yaml:3:37: error: unknown dependency 'c' of job 'b'",
        ])
  }

  @Test func aHandBuiltManifestWithADuplicateJobIsRefused() {
    let location = ManifestLocation(file: "jobs.yaml", line: 1, column: 1)
    let jobs = [
      JobSpec(name: "a", location: location, commands: ["x"]), JobSpec(name: "a", location: location, commands: ["y"]),
    ]
    #expect(throws: ManifestErrors.self) {
      try JobGraph(manifest: Manifest(path: "jobs.yaml", name: "jobs", jobs: jobs), defaultMaxConcurrent: 1)
    }
  }
}
