/// A ``GraphDrawing`` as a Graphviz DOT digraph (`oprun graph`, the default format): a
/// `cluster_` subgraph per queue, holding one per matrix job around its instances, nodes
/// named `n<id>` with the job's text as their label, so that no name can clash with a DOT
/// keyword or break the syntax.
///
/// The graph reads left to right, every arrow from a dependency to its dependent pointing
/// forward. Graphviz's classic ranking ranks each cluster on its own first and keeps the
/// ranks it found there: two jobs of one queue with no arrow between them share a rank, so a
/// queue holding both an early job and a late one pulled the early one to the far right,
/// its arrows pointing back. `newrank=true` ranks the whole graph at once, the clusters only
/// grouping their jobs.
enum DOTText {
  static func render(_ drawing: GraphDrawing) -> String {
    var text = ""
    text.reserveCapacity(128 * drawing.nodes.count + 32 * drawing.edges.count)
    text += "digraph \(quoted(drawing.title)) {\n"
    text += "  graph [rankdir=LR, newrank=true, fontname=\"Helvetica\"];\n"
    text += "  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
    text += "  edge [fontname=\"Helvetica\", fontsize=10];\n"
    for (index, cluster) in drawing.clusters.enumerated() {
      text += "  subgraph cluster_\(index) {\n"
      text += "    label=\(quoted(cluster.title));\n"
      for item in drawing.items(of: cluster) {
        switch item {
        case .node(let id):
          appendNode(drawing.nodes[id], to: &text)
        case .matrix(let matrix):
          text += "    subgraph cluster_\(index)_\(matrix) {\n"
          text += "    label=\(quoted(drawing.matrices[matrix].title));\n"
          for member in drawing.matrices[matrix].nodes { appendNode(drawing.nodes[member], to: &text) }
          text += "    }\n"
        }
      }
      text += "  }\n"
    }
    for edge in drawing.edges { appendEdge(edge, to: &text) }
    text += "}\n"
    return text
  }

  private static func appendNode(_ node: GraphDrawing.Node, to text: inout String) {
    text += "    n\(node.id) [label=\(quoted(node.lines))"
    if node.isBarrier { text += ", shape=hexagon" }
    if let status = node.status {
      text += ", style=\"rounded,filled\(status.isDashed ? ",dashed" : "")\", fillcolor=\"\(status.fill)\""
      if status.isFaded { text += ", fontcolor=\"#808080\", color=\"#808080\"" }
    }
    text += "];\n"
  }

  /// A barrier's edge is dashed; a `run-if` other than `success` labels the edge.
  private static func appendEdge(_ edge: GraphDrawing.Edge, to text: inout String) {
    text += "  n\(edge.from) -> n\(edge.to)"
    var attributes: [String] = []
    if edge.impliedByBarrier { attributes.append("style=dashed, color=\"#707070\"") }
    if edge.runIf != .success { attributes.append("label=\"\(edge.runIf.rawValue)\"") }
    if !attributes.isEmpty { text += " [" + attributes.joined(separator: ", ") + "]" }
    text += ";\n"
  }

  /// Lines as one DOT string, each centred.
  static func quoted(_ lines: [String]) -> String {
    "\"" + lines.map(escaped).joined(separator: "\\n") + "\""
  }

  static func quoted(_ line: String) -> String { "\"" + escaped(line) + "\"" }

  /// A quote or a backslash in a DOT string is escaped with a backslash; a backslash left
  /// alone would start an escape of Graphviz's own (`\N`, `\l`), and an `&` an HTML entity
  /// (`&amp;`), so it is written as one.
  static func escaped(_ line: String) -> String {
    guard line.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "&") })
    else { return line }
    var escaped = ""
    escaped.reserveCapacity(line.utf8.count + 8)
    for scalar in line.unicodeScalars {
      switch scalar {
      case "\"", "\\": escaped += "\\" + String(scalar)
      case "&": escaped += "&amp;"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }
}
