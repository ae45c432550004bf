import OprunCore
import Testing

@testable import OprunRuntime

/// `oprun graph`'s text: the DOT and mermaid writers on a small graph with two queues, a
/// barrier and `run-if`, hostile names, and the colours of a recorded run.
@Suite struct ReportingGraphTests {
  /// `gate` is a barrier of the main queue: it waits for `build` and `lint`, and `package`,
  /// `cleanup` and `notify` wait for it.
  static let manifest = """
    name: ci
    max-concurrent: 2
    queues:
      net: {max-concurrent: 1, qos: utility}
    jobs:
      fetch: {command: 'true', queue: net}
      build: {command: 'true', dependencies: [fetch], priority: high}
      lint: {command: 'true'}
      gate: {command: 'true', barrier: true}
      package: {command: 'true'}
      cleanup: {command: 'true', dependencies: [package], run-if: always}
      notify: {command: 'true', dependencies: [build], run-if: failure}
    """

  static func graph(_ text: String) -> JobGraph {
    let source = SourceText(path: "/work/jobs.yaml", text: text)
    switch ManifestLoader.graph(from: source, defaultMaxConcurrent: 4) {
    case .success(let graph): return graph
    case .failure(let errors):
      fatalError("test manifest: \(DiagnosticRenderer.render(errors.diagnostics, sources: [source]))")
    }
  }

  /// The lines of `text` between the line `opening` and the next line `closing`, trimmed.
  static func block(of text: String, from opening: String, to closing: String) -> [String] {
    let lines = text.split(separator: "\n").map { $0.trimmingPrefix(while: { $0 == " " }) }.map(String.init)
    guard let start = lines.firstIndex(of: opening) else { return [] }
    let rest = lines[(start + 1)...]
    return Array(rest.prefix { $0 != closing })
  }

  static func edgeLines(of text: String, arrow: String) -> [String] {
    text.split(separator: "\n").map { String($0.trimmingPrefix(while: { $0 == " " })) }.filter {
      $0.hasPrefix("n") && $0.contains(" \(arrow)")
    }
  }

  @Test func dotPutsEachQueueInItsClusterWithItsLimitAndEachJobsSettings() {
    let dot = DOTText.render(GraphDrawing(graph: Self.graph(Self.manifest)))
    #expect(dot.hasPrefix("digraph \"ci\" {\n"))
    #expect(
      Self.block(of: dot, from: "subgraph cluster_0 {", to: "}") == [
        "label=\"ci · max-concurrent 2\";",
        "n1 [label=\"build\\npriority high\"];",
        "n2 [label=\"lint\"];",
        "n3 [label=\"gate\\nbarrier\", shape=hexagon];",
        "n4 [label=\"package\"];",
        "n5 [label=\"cleanup\"];",
        "n6 [label=\"notify\"];",
      ])
    #expect(
      Self.block(of: dot, from: "subgraph cluster_1 {", to: "}") == [
        "label=\"net · max-concurrent 1\";",
        "n0 [label=\"fetch\\nqos utility\"];",
      ])
  }

  @Test func dotDrawsDependencyToDependentBarrierEdgesDashedAndRunIfAsALabel() {
    let dot = DOTText.render(GraphDrawing(graph: Self.graph(Self.manifest)))
    let dashed = "style=dashed, color=\"#707070\""
    #expect(
      Self.edgeLines(of: dot, arrow: "->") == [
        "n0 -> n1;",
        "n1 -> n3 [\(dashed)];",
        "n2 -> n3 [\(dashed)];",
        "n3 -> n4 [\(dashed)];",
        "n4 -> n5 [label=\"always\"];",
        "n3 -> n5 [\(dashed), label=\"always\"];",
        "n1 -> n6 [label=\"failure\"];",
        "n3 -> n6 [\(dashed), label=\"failure\"];",
      ])
  }

  @Test func mermaidHasTheSameClustersNodesAndEdges() {
    let mermaid = MermaidText.render(GraphDrawing(graph: Self.graph(Self.manifest)))
    #expect(mermaid.hasPrefix("flowchart LR\n"))
    #expect(
      Self.block(of: mermaid, from: "subgraph q0[\"ci · max-concurrent 2\"]", to: "end") == [
        "n1[\"build<br/>priority high\"]",
        "n2[\"lint\"]",
        "n3{{\"gate<br/>barrier\"}}",
        "n4[\"package\"]",
        "n5[\"cleanup\"]",
        "n6[\"notify\"]",
      ])
    #expect(
      Self.block(of: mermaid, from: "subgraph q1[\"net · max-concurrent 1\"]", to: "end") == [
        "n0[\"fetch<br/>qos utility\"]"
      ])
    #expect(
      Self.edgeLines(of: mermaid, arrow: "-") == [
        "n0 --> n1",
        "n1 -.-> n3",
        "n2 -.-> n3",
        "n3 -.-> n4",
        "n4 -->|always| n5",
        "n3 -.->|always| n5",
        "n1 -->|failure| n6",
        "n3 -.->|failure| n6",
      ])
    #expect(!mermaid.contains("classDef"))
  }

  @Test func hostileNamesAreOnlyEverLabelsEscapedForEachFormat() {
    let graph = Self.graph(
      """
      jobs:
        end: {command: 'true'}
        'a"b': {command: 'true', dependencies: [end]}
        x->y: {command: 'true', dependencies: ['a"b']}
        'back\\slash #1 <i> &amp; `t`': {command: 'true', dependencies: [x->y]}
        "line\\nbreak": {command: 'true'}
      """)
    let dot = DOTText.render(GraphDrawing(graph: graph))
    #expect(dot.contains("n0 [label=\"end\"];"))
    #expect(dot.contains("n1 [label=\"a\\\"b\"];"))
    #expect(dot.contains("n2 [label=\"x->y\"];"))
    #expect(dot.contains("n3 [label=\"back\\\\slash #1 <i> &amp;amp; `t`\"];"))
    #expect(dot.contains("n4 [label=\"line\\\\nbreak\"];"))
    let mermaid = MermaidText.render(GraphDrawing(graph: graph))
    #expect(mermaid.contains("    n0[\"end\"]\n"))
    #expect(mermaid.contains("    n1[\"a#quot;b\"]\n"))
    #expect(mermaid.contains("    n2[\"x-#gt;y\"]\n"))
    #expect(mermaid.contains("    n3[\"back\\slash #35;1 #lt;i#gt; #amp;amp; #96;t#96;\"]\n"))
    #expect(mermaid.contains("    n4[\"line\\nbreak\"]\n"))
    #expect(mermaid.split(separator: "\n").filter { $0.trimmingPrefix(while: { $0 == " " }) == "end" }.count == 1)
  }

  static let recordedRun = """
    {"t":0.001,"event":"run-started","queues":{"ci":2,"net":1},"jobs":7,"run":"r"}
    {"t":0.01,"event":"transition","job":"fetch","queue":"net","from":"ready","to":"executing","attempt":1,"pids":[1]}
    {"t":1.25,"event":"transition","job":"fetch","queue":"net","from":"executing","to":"finished","attempt":1,"outcome":"succeeded","exit_code":0,"signal":null,"duration":1.24}
    {"t":1.3,"event":"transition","job":"build","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[2]}
    {"t":1.8,"event":"transition","job":"build","queue":"ci","from":"executing","to":"finished","attempt":1,"outcome":"failed","exit_code":3,"signal":null,"duration":0.5}
    {"t":1.3,"event":"transition","job":"lint","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[3]}
    {"t":2.0,"event":"transition","job":"lint","queue":"ci","from":"executing","to":"finished","attempt":1,"outcome":"timed-out","exit_code":null,"signal":15,"duration":0.7}
    {"t":2.1,"event":"transition","job":"gate","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[4]}
    {"t":2.2,"event":"transition","job":"notify","queue":"ci","from":"pending","to":"ready","attempt":1}
    {"t":2.2,"event":"cancelled","job":"cleanup","reason":"interrupt"}
    {"t":2.2,"event":"transition","job":"cleanup","queue":"ci","from":"ready","to":"finished","attempt":1,"outcome":"cancelled","exit_code":null,"signal":null,"duration":0}
    {"t":2.5,"event":"transition","job":"gone","queue":"ci","from":"ready","to":"finished","attempt":1,"outcome":"skipped","exit_code":null,"signal":null,"duration":0}
    """

  @Test func aRecordedRunColoursEachJobAndSaysHowItEndedAndHowLongItTook() {
    let run = RecordedRun(eventLines: Array(Self.recordedRun.utf8))
    let drawing = GraphDrawing(graph: Self.graph(Self.manifest), run: run)
    let fates = drawing.nodes.map { ($0.lines[0], $0.status, $0.lines.last!) }
    #expect(fates.map(\.0) == ["fetch", "build", "lint", "gate", "package", "cleanup", "notify"])
    #expect(fates.map(\.1) == [.succeeded, .failed, .timedOut, .running, .notRun, .cancelled, .notStarted])
    #expect(
      fates.map(\.2) == [
        "succeeded in 1.24s", "failed (exit 3) in 0.50s", "timed out after 0.70s", "running for 0.40s", "not run",
        "cancelled (interrupt)", "not started",
      ])
    let dot = DOTText.render(drawing)
    #expect(
      dot.contains(
        "n0 [label=\"fetch\\nqos utility\\nsucceeded in 1.24s\", style=\"rounded,filled\", fillcolor=\"#b8e0b0\"];"
      ))
    #expect(
      dot.contains(
        "n1 [label=\"build\\npriority high\\nfailed (exit 3) in 0.50s\", style=\"rounded,filled\", fillcolor=\"#f2a7a7\"];"
      ))
    #expect(dot.contains("fillcolor=\"#f7c98b\"") && dot.contains("fillcolor=\"#a9cbf0\""))
    #expect(
      dot.contains(
        "n4 [label=\"package\\nnot run\", style=\"rounded,filled,dashed\", fillcolor=\"#ffffff\", fontcolor=\"#808080\", color=\"#808080\"];"
      ))
    let mermaid = MermaidText.render(drawing)
    #expect(mermaid.contains("  classDef succeeded fill:#b8e0b0,stroke:#404040\n  class n0 succeeded\n"))
    #expect(mermaid.contains("  class n4 notRun\n"))
    #expect(mermaid.contains("  class n6 notStarted\n"))
  }

  @Test func aSkippedJobAResumedJobAndAFailureBySignalReadAsTheSummaryWordsThem() throws {
    let run = RecordedRun(
      eventLines: Array(
        """
        {"t":0.5,"event":"transition","job":"a","queue":"ci","from":"ready","to":"executing","pids":[1]}
        {"t":2.5,"event":"transition","job":"a","queue":"ci","from":"executing","to":"finished","outcome":"failed","exit_code":null,"signal":9,"duration":2}
        {"t":2.5,"event":"transition","job":"b","queue":"ci","from":"ready","to":"finished","outcome":"skipped","exit_code":null,"signal":null,"duration":0}
        {"t":2.5,"event":"transition","job":"c","queue":"ci","from":"ready","to":"finished","outcome":"succeeded","exit_code":null,"signal":null,"duration":0,"resumed":true}
        """.utf8))
    let fates = ["a", "b", "c"].map { GraphDrawing.fate(of: run.job(named: $0), runEnd: run.end) }
    #expect(fates.map(\.0) == [.failed, .skipped, .succeeded])
    #expect(fates.map(\.1) == ["failed (signal SIGKILL) in 2.00s", "skipped", "succeeded (resumed)"])
  }

  @Test func jobsOfTheRunThatTheManifestLacksMakeOneWarningNamingAFew() {
    let graph = Self.graph(Self.manifest)
    let run = RecordedRun(eventLines: Array(Self.recordedRun.utf8))
    #expect(
      GraphCommandLine.unknownJobsWarning(run, graph: graph, path: "ev.ndjson")
        == "job 'gone' of the run in 'ev.ndjson' is not in the manifest: not shown")
    let many = (1...5).map {
      "{\"t\":1,\"event\":\"transition\",\"job\":\"old\($0)\",\"queue\":\"ci\",\"from\":\"pending\",\"to\":\"ready\"}"
    }
    let other = RecordedRun(eventLines: Array(many.joined(separator: "\n").utf8))
    #expect(
      GraphCommandLine.unknownJobsWarning(other, graph: graph, path: "ev.ndjson")
        == "jobs 'old1', 'old2', 'old3' and 2 more of the run in 'ev.ndjson' are not in the manifest: not shown")
    let known = RecordedRun(
      eventLines: Array(Self.recordedRun.split(separator: "\n").prefix(3).joined(separator: "\n").utf8))
    #expect(GraphCommandLine.unknownJobsWarning(known, graph: graph, path: "ev.ndjson") == nil)
  }
}

/// A matrix job's instances are drawn together, one group per matrix job (SPEC §11).
@Suite struct ReportingGraphMatrixTests {
  static let manifest = """
    name: ci
    jobs:
      build:
        matrix: {python: ["3.10", "3.12"]}
        command: 'true'
      lint: {command: 'true'}
      test:
        matrix: {python: ["3.10", "3.12"], db: [sqlite]}
        command: 'true'
        dependencies: ["build[${{ matrix.python }}]"]
    """

  @Test func dotDrawsEachMatrixJobAsAClusterOfItsInstancesInsideItsQueue() {
    let dot = DOTText.render(GraphDrawing(graph: ReportingGraphTests.graph(Self.manifest)))
    #expect(
      ReportingGraphTests.block(of: dot, from: "subgraph cluster_0_0 {", to: "}") == [
        "label=\"build · 2 instances\";", "n0 [label=\"build[3.10]\"];", "n1 [label=\"build[3.12]\"];",
      ])
    #expect(
      ReportingGraphTests.block(of: dot, from: "subgraph cluster_0_1 {", to: "}") == [
        "label=\"test · 2 instances\";", "n3 [label=\"test[3.10,sqlite]\"];", "n4 [label=\"test[3.12,sqlite]\"];",
      ])
    #expect(dot.contains("    n2 [label=\"lint\"];\n"))
    #expect(ReportingGraphTests.edgeLines(of: dot, arrow: "->") == ["n0 -> n3;", "n1 -> n4;"])
  }

  @Test func mermaidDrawsEachMatrixJobAsASubgraphOfItsInstances() {
    let mermaid = MermaidText.render(GraphDrawing(graph: ReportingGraphTests.graph(Self.manifest)))
    #expect(
      ReportingGraphTests.block(of: mermaid, from: "subgraph m1[\"test · 2 instances\"]", to: "end") == [
        "n3[\"test[3.10,sqlite]\"]", "n4[\"test[3.12,sqlite]\"]",
      ])
    #expect(mermaid.contains("subgraph m0[\"build · 2 instances\"]\n"))
  }
}
