/// A ``GraphDrawing`` as a mermaid flowchart (`oprun graph --format mermaid`), for a README
/// or a pull request: a `subgraph` per queue, holding one per matrix job around its
/// instances, nodes named `n<id>` with the job's text as a quoted label, so that a job called
/// `end` or `x-->y` is only ever a label.
enum MermaidText {
  static func render(_ drawing: GraphDrawing) -> String {
    var text = ""
    text.reserveCapacity(96 * drawing.nodes.count + 16 * drawing.edges.count)
    text += "flowchart LR\n"
    for (index, cluster) in drawing.clusters.enumerated() {
      text += "  subgraph q\(index)[\(quoted([cluster.title]))]\n"
      for item in drawing.items(of: cluster) {
        switch item {
        case .node(let id):
          appendNode(drawing.nodes[id], to: &text)
        case .matrix(let matrix):
          text += "    subgraph m\(matrix)[\(quoted([drawing.matrices[matrix].title]))]\n"
          for member in drawing.matrices[matrix].nodes { appendNode(drawing.nodes[member], to: &text) }
          text += "    end\n"
        }
      }
      text += "  end\n"
    }
    for edge in drawing.edges { appendEdge(edge, to: &text) }
    appendClasses(of: drawing.nodes, to: &text)
    return text
  }

  /// A box, or a hexagon for a barrier.
  private static func appendNode(_ node: GraphDrawing.Node, to text: inout String) {
    let label = quoted(node.lines)
    text += "    n\(node.id)" + (node.isBarrier ? "{{\(label)}}" : "[\(label)]") + "\n"
  }

  /// A barrier's edge is dotted; a `run-if` other than `success` labels the edge.
  private static func appendEdge(_ edge: GraphDrawing.Edge, to text: inout String) {
    text += "  n\(edge.from) " + (edge.impliedByBarrier ? "-.->" : "-->")
    if edge.runIf != .success { text += "|\(edge.runIf.rawValue)|" }
    text += " n\(edge.to)\n"
  }

  /// One `classDef` per status present and one `class` line listing its nodes.
  private static func appendClasses(of nodes: [GraphDrawing.Node], to text: inout String) {
    var members: [GraphDrawing.NodeStatus: [String]] = [:]
    for node in nodes {
      if let status = node.status { members[status, default: []].append("n\(node.id)") }
    }
    for status in GraphDrawing.NodeStatus.allCases {
      guard let ids = members[status] else { continue }
      var style = "fill:\(status.fill),stroke:\(status.isFaded ? "#808080" : "#404040")"
      if status.isDashed { style += ",stroke-dasharray:5 3" }
      if status.isFaded { style += ",color:#808080" }
      text += "  classDef \(status.rawValue) \(style)\n"
      text += "  class \(ids.joined(separator: ",")) \(status.rawValue)\n"
    }
  }

  /// Lines as one quoted label, joined by line breaks.
  static func quoted(_ lines: [String]) -> String {
    "\"" + lines.map(escaped).joined(separator: "<br/>") + "\""
  }

  /// Inside a quoted label, mermaid ends the label at `"`, reads `#…;` as an entity and
  /// passes `<`, `>` and `&` on as HTML, and a label in backticks is markdown: each of these
  /// is written as an entity (`#35;` for `#`), so the label shows what the name says.
  static func escaped(_ line: String) -> String {
    guard line.unicodeScalars.contains(where: { entities[$0] != nil }) else { return line }
    var escaped = ""
    escaped.reserveCapacity(line.utf8.count + 8)
    for scalar in line.unicodeScalars {
      if let entity = entities[scalar] { escaped += entity } else { escaped.unicodeScalars.append(scalar) }
    }
    return escaped
  }

  private static let entities: [Unicode.Scalar: String] = [
    "\"": "#quot;", "#": "#35;", "<": "#lt;", ">": "#gt;", "&": "#amp;", "`": "#96;",
  ]
}
