/// A YAML document as a tree of positioned nodes, stored flat for speed.
///
/// Aliases are resolved by sharing: an alias is the index of its anchor's node, so a
/// node can have several parents. Invariant: the tree is acyclic and no deeper than
/// ``YAMLTreeBuilder/maximumDepth``.
struct YAMLTree {
  /// Every node, children before their container.
  var nodes: [YAMLNode] = []
  /// The children of every container, contiguous per container: a mapping's are key, value, key, value…
  var children: [Int32] = []
  var root: Int32? = nil
  /// What was read but cannot be used (a NUL in a scalar, a tag oprun does not read): the
  /// document is still read whole, so these are reported together with the schema's problems.
  var problems = DiagnosticCollector()

  subscript(node: Int32) -> YAMLNode { nodes[Int(node)] }

  /// The items of a sequence, or the alternating keys and values of a mapping.
  func children(of node: Int32) -> ArraySlice<Int32> {
    let container = nodes[Int(node)]
    let start = Int(container.childStart)
    return children[start..<start + Int(container.childCount)]
  }

  /// The key and value nodes of a mapping, in the order written.
  func entries(of node: Int32) -> MappingEntries {
    MappingEntries(pairs: children(of: node))
  }
}

/// The `(key, value)` pairs of a mapping node.
struct MappingEntries: Sequence {
  let pairs: ArraySlice<Int32>

  var count: Int { pairs.count / 2 }

  func makeIterator() -> Iterator { Iterator(pairs: pairs, index: pairs.startIndex) }

  struct Iterator: IteratorProtocol {
    let pairs: ArraySlice<Int32>
    var index: Int

    mutating func next() -> (key: Int32, value: Int32)? {
      guard index < pairs.endIndex else { return nil }
      defer { index += 2 }
      return (pairs[index], pairs[index + 1])
    }
  }
}

/// One node: a scalar, a sequence or a mapping, with where it starts (1-based).
struct YAMLNode {
  enum Kind: UInt8 {
    case scalar
    case sequence
    case mapping
  }

  var kind: Kind
  /// A scalar written without quotes and without a tag: only these can be null, numbers or booleans.
  var isPlain: Bool
  var line: Int32
  var column: Int32
  /// Where this container's children start in ``YAMLTree/children``.
  var childStart: Int32
  var childCount: Int32
  /// The scalar's value; empty for containers.
  var text: String

  /// A plain `~`, `null` or nothing at all: YAML's null.
  var isNull: Bool {
    guard kind == .scalar, isPlain else { return false }
    switch text {
    case "", "~", "null", "Null", "NULL": return true
    default: return false
    }
  }
}
