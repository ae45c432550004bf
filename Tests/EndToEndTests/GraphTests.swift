import Foundation
import Testing

/// `oprun graph` (SPEC §4): the graph as Graphviz and mermaid read it back, coloured by a real
/// run, and the errors it shares with a run and with `oprun check`.
@Suite struct GraphTests {
  static let demo = packageRoot.appendingPathComponent("jobs/demo.yaml").path

  /// Names a DOT keyword, mermaid's `end`, quotes, a backslash, an arrow, markup and unicode.
  static let hostile = """
    name: 'q "x" #1'
    max-concurrent: 2
    queues:
      "sub graph": {max-concurrent: 1}
    jobs:
      end: {command: 'true'}
      'a"b': {command: 'true', dependencies: [end]}
      x->y: {command: 'true', dependencies: ['a"b'], run-if: always}
      'back\\slash': {command: 'true', barrier: true}
      "ünï 😀 <b>&amp; #35; `tick`": {command: 'true', queue: sub graph, dependencies: [end], priority: high}
      subgraph: {command: 'true', dependencies: ["back\\\\slash"], run-if: failure}
    """

  static let hostileNames = ["end", "a\"b", "x->y", "back\\slash", "ünï 😀 <b>&amp; #35; `tick`", "subgraph"]

  static func graph(_ arguments: [String], in folder: Scratch) throws -> String {
    let result = try runOprun(["graph"] + arguments, in: folder)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    return result.stdout
  }

  @Test func theDemoDrawnByGraphvizHasEveryJobInItsQueueAndEveryDependency() throws {
    let folder = try Scratch()
    let drawn = try drawWithGraphviz(try Self.graph([Self.demo], in: folder), in: folder)
    #expect(drawn.clusters.map { $0.texts } == [["demo · max-concurrent 2"], ["io · max-concurrent 1"]])
    #expect(
      Set(drawn.nodes.compactMap(\.texts.first)) == [
        "prepare", "fetch-deps", "generate", "compile-lib", "compile-app", "docs", "link", "unit-tests",
        "integration-tests", "package", "collect-logs",
      ])
    // Each box says what the job is for (its `description`), then what sets it apart.
    #expect(
      drawn.node(named: "generate")?.texts == ["generate", "Generate the sources", "priority high · qos userInitiated"])
    #expect(
      drawn.node(named: "fetch-deps")?.texts == ["fetch-deps", "Pretend to download the dependencies", "qos utility"])
    #expect(
      drawn.namedEdges == [
        "prepare -> fetch-deps", "prepare -> generate", "fetch-deps -> compile-lib", "generate -> compile-lib",
        "generate -> compile-app", "prepare -> docs", "compile-lib -> link", "compile-app -> link",
        "link -> unit-tests", "link -> integration-tests", "unit-tests -> package", "integration-tests -> package",
        "docs -> package", "unit-tests -> collect-logs always", "integration-tests -> collect-logs always",
      ])
  }

  /// Every arrow points forward: `fetch-deps`, early in a queue whose other job runs last,
  /// is drawn left of the job that waits for it.
  @Test func theDemoReadsLeftToRightWithEveryArrowPointingForward() throws {
    let folder = try Scratch()
    let dot = try Self.graph([Self.demo], in: folder)
    #expect(dot.contains("rankdir=LR"))
    let laidOut = try ExternalTool("dot", package: "graphviz").run(
      ["-Tplain", try folder.write("graph.dot", dot)], in: folder)
    #expect(laidOut.status == 0, "\(laidOut.stderr)")
    // `node NAME X Y …` and `edge TAIL HEAD …`: the nodes are n<id>, so no name is quoted.
    var x: [String: Double] = [:]
    var edges: [(tail: String, head: String)] = []
    for line in laidOut.stdout.split(separator: "\n") {
      let words = line.split(separator: " ").map(String.init)
      if words.first == "node", words.count > 2 { x[words[1]] = Double(words[2]) }
      if words.first == "edge", words.count > 2 { edges.append((words[1], words[2])) }
    }
    #expect(x.count == 11 && edges.count == 15)
    let backward = edges.filter { (x[$0.tail] ?? 0) >= (x[$0.head] ?? 0) }.map { "\($0.tail) -> \($0.head)" }
    #expect(backward.isEmpty, "arrows pointing back: \(backward)\n\(laidOut.stdout)")
  }

  @Test func namedJobsDrawOnlyThemAndTheirDependenciesAsARunSelectsThem() throws {
    let folder = try Scratch()
    let drawn = try drawWithGraphviz(try Self.graph([Self.demo, "compile-app", "docs"], in: folder), in: folder)
    #expect(Set(drawn.nodes.compactMap(\.texts.first)) == ["prepare", "generate", "compile-app", "docs"])
    #expect(drawn.namedEdges == ["prepare -> generate", "generate -> compile-app", "prepare -> docs"])
    #expect(drawn.clusters.map { $0.texts } == [["demo · max-concurrent 2"]])
  }

  @Test func aRealRunColoursEachJobByItsOutcomeWithItsDuration() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      name: real
      max-concurrent: 2
      on-failure: continue
      jobs:
        ok: {command: 'true'}
        bad: {command: 'exit 3', dependencies: [ok]}
        slow: {command: 'sleep 30', timeout: 200ms}
        after-bad: {command: 'true', dependencies: [bad]}
        cleanup: {command: 'true', dependencies: [bad], run-if: always}
        gone: {command: 'true'}
      """)
    let run = try runOprun(["jobs.yaml", "--events", "events.ndjson"], in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    // The manifest as it is now: `gone` left it, `added` joined it after the run.
    try folder.manifest(
      """
      name: real
      max-concurrent: 2
      jobs:
        ok: {command: 'true'}
        bad: {command: 'exit 3', dependencies: [ok]}
        slow: {command: 'sleep 30', timeout: 200ms}
        after-bad: {command: 'true', dependencies: [bad]}
        cleanup: {command: 'true', dependencies: [bad], run-if: always}
        added: {command: 'true', dependencies: [ok]}
      """)
    let graph = try runOprun(["graph", "jobs.yaml", "--run", "events.ndjson"], in: folder)
    #expect(graph.status == 0)
    #expect(
      graph.stderr
        == "oprun: warning: job 'gone' of the run in 'events.ndjson' is not in the manifest: not shown\n")
    let drawn = try drawWithGraphviz(graph.stdout, in: folder)
    let expected: [(String, String, String)] = [
      ("ok", "#b8e0b0", "succeeded in "), ("bad", "#f2a7a7", "failed (exit 3) in "),
      ("slow", "#f7c98b", "timed out after "), ("after-bad", "#e4e4e4", "skipped"),
      ("cleanup", "#b8e0b0", "succeeded in "), ("added", "#ffffff", "not run"),
    ]
    for (name, fill, outcome) in expected {
      let node = try #require(drawn.node(named: name), "no node \(name)")
      #expect(node.fill == fill, "\(name)")
      let last = node.texts.last ?? ""
      #expect(last.hasPrefix(outcome), "\(name): \(node.texts)")
      if outcome.hasSuffix(" ") {
        let duration = last.dropFirst(outcome.count)
        #expect(duration.wholeMatch(of: /[0-9]+\.[0-9][0-9]s/) != nil, "\(name): \(last)")
      }
    }
    #expect(drawn.node(named: "added")?.dashed == true)
    #expect(drawn.node(named: "ok")?.dashed == false)
  }

  @Test func aRunCutOffWhileAJobRanShowsItRunningAndWhatWaitedForItNotStarted() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      name: cut
      jobs:
        quick: {command: 'true'}
        long: {command: 'echo $$ > long.pid; exec sleep 1000', dependencies: [quick]}
        waiting: {command: 'true', dependencies: [long]}
      """)
    let oprun = try OprunProcess(["jobs.yaml", "--events", "events.ndjson", "--grace", "0.5"], in: folder)
    try waitUntil("the event of long's start") {
      (folder.read("events.ndjson") ?? "").split(separator: "\n").contains {
        $0.contains("\"job\":\"long\"") && $0.contains("\"to\":\"executing\"")
      }
    }
    oprun.send(SIGKILL)
    #expect(oprun.wait().signal == SIGKILL)
    if let pid = Int32((folder.read("long.pid") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) {
      try waitUntil("long's process to end with the run") { !isAlive(pid) }
    }
    let drawn = try drawWithGraphviz(try Self.graph(["jobs.yaml", "--run", "events.ndjson"], in: folder), in: folder)
    let long = try #require(drawn.node(named: "long"))
    #expect(long.fill == "#a9cbf0")
    #expect(long.texts.last?.wholeMatch(of: /running for [0-9]+\.[0-9][0-9]s/) != nil, "\(long.texts)")
    let waiting = try #require(drawn.node(named: "waiting"))
    #expect(waiting.fill == "#ffffff" && waiting.dashed)
    #expect(["not started", "not run"].contains(waiting.texts.last), "\(waiting.texts)")
    #expect(drawn.node(named: "quick")?.fill == "#b8e0b0")
  }

  @Test func hostileNamesReadBackFromGraphvizAsTheyAreWritten() throws {
    let folder = try Scratch()
    try folder.manifest(Self.hostile)
    let drawn = try drawWithGraphviz(try Self.graph(["jobs.yaml"], in: folder), in: folder)
    #expect(drawn.nodes.compactMap(\.texts.first).sorted() == Self.hostileNames.sorted())
    #expect(drawn.clusters.map { $0.texts } == [["q \"x\" #1 · max-concurrent 2"], ["sub graph · max-concurrent 1"]])
    #expect(
      drawn.namedEdges == [
        "end -> a\"b", "a\"b -> x->y always", "end -> back\\slash", "a\"b -> back\\slash", "x->y -> back\\slash",
        "end -> ünï 😀 <b>&amp; #35; `tick`", "back\\slash -> subgraph failure",
      ])
    #expect(drawn.edges.filter(\.dashed).count == 3)
    #expect(drawn.node(named: "back\\slash")?.texts == ["back\\slash", "barrier"])
  }

  @Test func hostileNamesReadBackFromMermaidsOwnParserAndRenderer() throws {
    let folder = try Scratch()
    try folder.manifest(Self.hostile)
    let parsed = try ParsedMermaid.read(try Self.graph(["jobs.yaml", "--format", "mermaid"], in: folder), in: folder)
    #expect(parsed.error == nil, "mermaid refused the text: \(parsed.error ?? "")")
    let names = parsed.labels.mapValues { $0.components(separatedBy: "\n")[0] }
    #expect(names.values.sorted() == Self.hostileNames.sorted())
    #expect(parsed.titles == ["q0": "q \"x\" #1 · max-concurrent 2", "q1": "sub graph · max-concurrent 1"])
    let edges = Set(
      parsed.edges.map { "\(names[$0.from] ?? $0.from) -> \(names[$0.to] ?? $0.to) \($0.stroke) \($0.label)" })
    #expect(
      edges == [
        "end -> a\"b normal ", "a\"b -> x->y normal always", "end -> back\\slash dotted ",
        "a\"b -> back\\slash dotted ", "x->y -> back\\slash dotted ", "end -> ünï 😀 <b>&amp; #35; `tick` normal ",
        "back\\slash -> subgraph normal failure",
      ])
    let membership = parsed.subgraphs.map { ($0.id, $0.nodes.compactMap { names[$0] }.sorted()) }
    #expect(membership.map(\.0) == ["q0", "q1"])
    #expect(
      membership.map(\.1) == [["a\"b", "back\\slash", "end", "subgraph", "x->y"], ["ünï 😀 <b>&amp; #35; `tick`"]])
    let barrier = parsed.vertices.first { names[$0.id] == "back\\slash" }
    #expect(barrier?.shape == "hexagon")
    #expect(parsed.labels.values.contains("ünï 😀 <b>&amp; #35; `tick`\npriority high"))
  }

  @Test func aRecordedRunReadsBackFromMermaidWithItsClasses() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        first: {command: 'true'}
        second: {command: 'true', dependencies: [first]}
      """)
    let run = try runOprun(["jobs.yaml", "first", "--events", "events.ndjson"], in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let mermaid = try Self.graph(["jobs.yaml", "--format", "mermaid", "--run", "events.ndjson"], in: folder)
    let parsed = try ParsedMermaid.read(mermaid, in: folder)
    #expect(parsed.error == nil, "mermaid refused the text: \(parsed.error ?? "")")
    let first = try #require(parsed.labels["n0"]).components(separatedBy: "\n")
    #expect(first.first == "first" && first.last?.hasPrefix("succeeded in ") == true, "\(first)")
    #expect(parsed.labels["n1"] == "second\nnot run")
    #expect(parsed.edges == [.init(from: "n0", to: "n1", stroke: "normal", label: "")])
    #expect(mermaid.contains("  class n0 succeeded\n") && mermaid.contains("  class n1 notRun\n"))
  }

  @Test func anUnknownJobIsTheRunsErrorAndExits2() throws {
    let folder = try Scratch()
    let graph = try runOprun(["graph", Self.demo, "linkk"], in: folder)
    let run = try runOprun([Self.demo, "linkk"], in: folder)
    #expect(graph.status == 2 && run.status == 2)
    #expect(graph.stderr == "oprun: error: unknown job 'linkk' (did you mean 'link'?)\n")
    #expect(graph.stderr == run.stderr)
    #expect(graph.stdout.isEmpty)
  }

  @Test func aBrokenManifestGivesCheckDiagnosticsAndExits2() throws {
    let folder = try Scratch()
    let broken = packageRoot.appendingPathComponent("jobs/broken.yaml").path
    let graph = try runOprun(["graph", broken], in: folder)
    let check = try runOprun(["check", broken], in: folder)
    #expect(graph.status == 2 && check.status == 2)
    #expect(graph.stderr == check.stderr)
    #expect(graph.stderr.contains("error: unknown dependency 'biuld' of job 'test'"))
    #expect(graph.stdout.isEmpty)
  }

  @Test func aMissingOrForeignEventsFileIsAnErrorAndExits2() throws {
    let folder = try Scratch()
    let missing = try runOprun(["graph", Self.demo, "--run", "nowhere.ndjson"], in: folder)
    #expect(missing.status == 2)
    #expect(missing.stderr == "oprun: error: cannot read the events file 'nowhere.ndjson': No such file or directory\n")
    try folder.write("notes.txt", "not\nevents\n")
    let foreign = try runOprun(["graph", Self.demo, "--run", "notes.txt"], in: folder)
    #expect(foreign.status == 2)
    #expect(
      foreign.stderr
        == "oprun: error: 'notes.txt' holds no oprun events: give the file a run wrote with --events\n")
    #expect(missing.stdout.isEmpty && foreign.stdout.isEmpty)
  }

  @Test func anUnknownFormatIsAUsageErrorThatNamesTheFormats() throws {
    let folder = try Scratch()
    let result = try runOprun(["graph", Self.demo, "--format", "svg"], in: folder)
    #expect(result.status == 2)
    #expect(result.stderr.contains("'dot' and 'mermaid'"), "\(result.stderr)")
    #expect(result.stdout.isEmpty)
  }

  @Test func helpListsTheGraphCommandAndItsOptions() throws {
    let folder = try Scratch()
    let help = try runOprun(["--help"], in: folder)
    #expect(help.status == 0)
    #expect(help.stdout.contains("  graph [MANIFEST] [JOB...]"))
    let graphHelp = try runOprun(["help", "graph"], in: folder)
    #expect(graphHelp.status == 0)
    #expect(graphHelp.stdout.contains("--format <FORMAT>") && graphHelp.stdout.contains("--run <EVENTS>"))
  }
}
