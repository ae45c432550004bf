import Foundation
import Testing

/// The SVG Graphviz's `dot -Tsvg` draws, read back: each node's, edge's and cluster's
/// `<title>`, its text lines, its fill and whether its line is dashed.
struct DrawnSVG {
  struct Element {
    var kind: String
    var title: String
    var texts: [String] = []
    var fill: String?
    var dashed = false
  }

  var elements: [Element] = []

  init(_ svg: String) {
    var current: Element?
    for line in svg.split(separator: "\n").map(String.init) {
      if let kind = Self.attribute("class", in: line), line.hasPrefix("<g id=") {
        current = Element(kind: kind, title: "")
      } else if line == "</g>", let element = current {
        elements.append(element)
        current = nil
      } else if current != nil {
        if let title = Self.content(of: "title", in: line) {
          current!.title = title
        } else if let text = Self.content(of: "text", in: line) {
          current!.texts.append(text)
        } else if line.hasPrefix("<path") || line.hasPrefix("<polygon") {
          if current!.fill == nil, let fill = Self.attribute("fill", in: line) { current!.fill = fill }
          if line.contains("stroke-dasharray") { current!.dashed = true }
        }
      }
    }
  }

  var nodes: [Element] { elements.filter { $0.kind == "node" } }
  var edges: [Element] { elements.filter { $0.kind == "edge" } }
  var clusters: [Element] { elements.filter { $0.kind == "cluster" } }

  /// The node whose first line is `name`.
  func node(named name: String) -> Element? { nodes.first { $0.texts.first == name } }

  /// Every edge as `from -> to` by the jobs' names, with its label after a space when it has one.
  var namedEdges: Set<String> {
    var names: [String: String] = [:]
    for node in nodes { names[node.title] = node.texts.first ?? "" }
    return Set(
      edges.map { edge in
        let ends = edge.title.components(separatedBy: "->")
        let named = "\(names[ends[0]] ?? ends[0]) -> \(names[ends[1]] ?? ends[1])"
        return edge.texts.isEmpty ? named : named + " " + edge.texts.joined(separator: " ")
      })
  }

  /// The text between `<tag ...>` and `</tag>` on `line`, entities decoded.
  static func content(of tag: String, in line: String) -> String? {
    guard line.hasPrefix("<\(tag)"), line.hasSuffix("</\(tag)>"), let open = line.firstIndex(of: ">") else {
      return nil
    }
    let inner = line[line.index(after: open)..<line.index(line.endIndex, offsetBy: -(tag.count + 3))]
    return decoded(String(inner))
  }

  static func attribute(_ name: String, in line: String) -> String? {
    guard let start = line.range(of: " \(name)=\"") else { return nil }
    let rest = line[start.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
  }

  /// XML entities, named and numeric, as Graphviz writes them.
  static func decoded(_ text: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let ampersand = rest.firstIndex(of: "&") {
      result += rest[..<ampersand]
      guard let semicolon = rest[ampersand...].firstIndex(of: ";") else { break }
      let entity = rest[rest.index(after: ampersand)..<semicolon]
      switch entity {
      case "lt": result += "<"
      case "gt": result += ">"
      case "amp": result += "&"
      case "quot": result += "\""
      case "apos": result += "'"
      default:
        let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : UInt32(entity.dropFirst())
        result += number.flatMap(Unicode.Scalar.init).map { String(Character($0)) } ?? "&\(entity);"
      }
      rest = rest[rest.index(after: semicolon)...]
    }
    return result + rest
  }
}

/// Graphviz's drawing of `dot` text.
func drawWithGraphviz(_ dot: String, in folder: Scratch) throws -> DrawnSVG {
  let tool = try ExternalTool("dot", package: "graphviz")
  let input = try folder.write("graph.dot", dot)
  let drawn = try tool.run(["-Tsvg", input], in: folder)
  let (status, svg) = (drawn.status, drawn.stdout)
  #expect(status == 0, "dot -Tsvg refused the graph:\n\(dot)")
  return DrawnSVG(svg)
}
