import Foundation
import Testing

/// A mermaid flowchart as mermaid itself reads it: its parser's vertices, edges and
/// subgraphs, and each node's label as its renderer draws it (line breaks as `\n`).
///
/// Mermaid is JavaScript: the text is parsed and rendered by mermaid.min.js (11.x) in

struct ParsedMermaid: Decodable {
  struct Vertex: Decodable, Equatable {
    var id: String
    /// `square` for `["…"]`, `hexagon` for `{{"…"}}`.
    var shape: String
  }

  struct Edge: Decodable, Hashable, CustomStringConvertible {
    var from: String
    var to: String
    /// `normal` or `dotted`.
    var stroke: String
    var label: String
    var description: String { "\(from) -> \(to) \(stroke) \(label)" }
  }

  struct Subgraph: Decodable, Equatable {
    var id: String
    var nodes: [String]
  }

  var vertices: [Vertex] = []
  var edges: [Edge] = []
  var subgraphs: [Subgraph] = []
  /// Node id → its drawn label.
  var labels: [String: String] = [:]
  /// Subgraph id → its drawn title.
  var titles: [String: String] = [:]
  /// What mermaid threw, when it refused the text.
  var error: String?

  private enum CodingKeys: String, CodingKey { case vertices, edges, subgraphs, labels, titles, error }

  /// A refusal has only `error`.
  init(from decoder: any Decoder) throws {
    let values = try decoder.container(keyedBy: CodingKeys.self)
    vertices = try values.decodeIfPresent([Vertex].self, forKey: .vertices) ?? []
    edges = try values.decodeIfPresent([Edge].self, forKey: .edges) ?? []
    subgraphs = try values.decodeIfPresent([Subgraph].self, forKey: .subgraphs) ?? []
    labels = try values.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
    titles = try values.decodeIfPresent([String: String].self, forKey: .titles) ?? [:]
    error = try values.decodeIfPresent(String.self, forKey: .error)
  }

  /// Where `make test-deps` puts mermaid.min.js.
  static let defaultScript = packageRoot.appendingPathComponent(".build-tools/mermaid/mermaid.min.js").path

  /// Reads `text` with mermaid in chromium.
  static func read(_ text: String, in folder: Scratch) throws -> ParsedMermaid {
    let chromium = try ExternalTool("chromium", package: "chromium")
    let script = ProcessInfo.processInfo.environment["OPRUN_MERMAID_JS"] ?? defaultScript
    guard FileManager.default.fileExists(atPath: script) else {
      throw MissingTool(
        description: """
          this test needs mermaid.min.js (11.x) at \(script) (or OPRUN_MERMAID_JS): `make test-deps` fetches it
          """)
    }
    let textLiteral = String(decoding: try JSONSerialization.data(withJSONObject: [text]), as: UTF8.self)
    let page = try folder.write("mermaid.html", harness(script: script, textLiteral: textLiteral))
    let (status, dom) = try chromium.runForOutput(
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(folder.path("chromium"))",
        "--virtual-time-budget=30000", "--dump-dom", "file://\(page)",
      ], in: folder)
    #expect(status == 0, "chromium exited with \(status)")
    guard let start = dom.range(of: "<pre id=\"out\">"),
      let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex),
      let json = Data(base64Encoded: String(dom[start.upperBound..<end.lowerBound]))
    else {
      throw MissingTool(description: "mermaid gave no answer in chromium:\n\(dom.prefix(2000))")
    }
    return try JSONDecoder().decode(ParsedMermaid.self, from: json)
  }

  /// A page that parses and renders the text, then writes what it found into `#out`, as
  /// base64 so that the DOM's own escaping cannot change it.
  private static func harness(script: String, textLiteral: String) -> String {
    """
    <!doctype html><html><head><meta charset="utf-8"></head><body><pre id="out">pending</pre><div id="drawing"></div>
    <script src="file://\(script)"></script>
    <script>
    const text = \(textLiteral)[0];
    function shown(element) {
      const copy = element.cloneNode(true);
      copy.querySelectorAll('br').forEach(br => br.replaceWith('\\n'));
      return copy.textContent;
    }
    function answer(value) {
      const bytes = new TextEncoder().encode(JSON.stringify(value));
      let binary = '';
      bytes.forEach(byte => { binary += String.fromCharCode(byte); });
      document.getElementById('out').textContent = btoa(binary);
    }
    (async () => {
      try {
        mermaid.initialize({startOnLoad: false, securityLevel: 'strict'});
        const db = (await mermaid.mermaidAPI.getDiagramFromText(text)).db;
        const vertices = [...db.getVertices().values()].map(v => ({id: v.id, shape: v.type}));
        const edges = db.getEdges().map(e => ({from: e.start, to: e.end, stroke: e.stroke, label: e.text}));
        const subgraphs = db.getSubGraphs().map(s => ({id: s.id, nodes: s.nodes}));
        const {svg} = await mermaid.render('drawn', text);
        document.getElementById('drawing').innerHTML = svg;
        const labels = {};
        document.querySelectorAll('#drawing g.node').forEach(node => {
          const id = node.id.replace(/^.*flowchart-/, '').replace(/-[0-9]+$/, '');
          labels[id] = shown(node.querySelector('.nodeLabel') || node);
        });
        const titles = {};
        document.querySelectorAll('#drawing g.cluster').forEach(cluster => {
          titles[cluster.id.replace(/^drawn-/, '')] = shown(cluster.querySelector('.nodeLabel') || cluster);
        });
        answer({vertices, edges, subgraphs, labels, titles});
      } catch (error) {
        answer({error: String((error && error.message) || error)});
      }
    })();
    </script></body></html>
    """
  }
}
