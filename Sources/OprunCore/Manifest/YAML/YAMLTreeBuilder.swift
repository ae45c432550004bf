import CYAML

/// Builds a ``YAMLTree`` from libyaml's events, without recursion: one loop, explicit stacks.
///
/// Everything a hostile file could use to exhaust memory or time is capped with a diagnostic:
/// nesting depth, and how much aliases expand the document ("billion laughs"), both in nodes
/// and in the bytes of scalar text a reader of the expanded document would hold.
///
/// A scalar holding a NUL character, a tag oprun does not read, and a merge key (`<<`) that
/// merges something other than mappings are recorded in the tree's ``YAMLTree/problems`` and
/// reading goes on, so they are reported with the rest. Merge keys are resolved as each
/// mapping ends (``YAMLTree/resolvingMergeKeys(_:file:)``).
struct YAMLTreeBuilder {
  /// Deeper nesting is refused: no manifest needs it, and it keeps every later walk shallow.
  static let maximumDepth = 1000
  /// Aliases may always add this many nodes, and beyond it up to ten times the nodes written.
  static let aliasExpansionAllowance = 1_000_000
  /// Aliases may always add this many bytes of scalar text, and beyond it up to ten times
  /// the file's size.
  static let aliasTextAllowance = 16 << 20

  /// What a node stands for once every alias in it is expanded.
  private struct Weight {
    var nodes: Int
    var bytes: Int

    static func += (weight: inout Weight, other: Weight) {
      weight.nodes += other.nodes
      weight.bytes += other.bytes
    }
  }

  /// A container whose end event has not come yet.
  private struct OpenContainer {
    var node: Int32
    var pendingStart: Int
    var isAnchored: Bool
    /// Written by indentation, not in brackets or braces.
    var isBlock: Bool
    var weight: Weight
  }

  private let source: SourceText
  private var tree = YAMLTree()
  /// The children of every open container, innermost last; moved to `tree.children` at its end.
  private var pending: [Int32] = []
  private var open: [OpenContainer] = []
  /// The node of each anchor's most recent definition, open or complete: an alias refers to it.
  private var latestAnchors: [String: Int32] = [:]
  /// The expanded weight of every complete anchored node; an anchored node missing here is
  /// still open, and an alias to it would make a cycle.
  private var anchoredWeights: [Int32: Weight] = [:]
  private var expandedByAliases = Weight(nodes: 0, bytes: 0)
  private var documents = 0
  /// The block container that ended last: where a misaligned line may have meant to be.
  private var lastClosedBlock: Int32?

  private init(source: SourceText) {
    self.source = source
    // Growing by doubling would copy the node array several times; a manifest has about
    // one node per 14 bytes, and capacity never touched costs no memory.
    tree.nodes.reserveCapacity(source.bytes.count / 12)
    tree.children.reserveCapacity(source.bytes.count / 12)
  }

  /// The document's tree (without a root if the file holds no document), or the first problem.
  static func build(_ source: SourceText) -> Result<YAMLTree, Diagnostic> {
    var builder = YAMLTreeBuilder(source: source)
    return source.bytes.withUnsafeBufferPointer { buffer in
      var parser = yaml_parser_t()
      guard yaml_parser_initialize(&parser) == 1 else {
        return .failure(Diagnostic(at: nil, "out of memory while reading '\(source.path)'"))
      }
      defer { yaml_parser_delete(&parser) }
      yaml_parser_set_input_string(&parser, buffer.baseAddress ?? UnsafePointer(bitPattern: 1), buffer.count)
      return builder.consumeEvents(&parser)
    }
  }

  // Maps the event loop: each event either opens a container, closes one, or adds a
  // leaf to the innermost open container; the stream ends the loop.
  private mutating func consumeEvents(_ parser: inout yaml_parser_t) -> Result<YAMLTree, Diagnostic> {
    var event = yaml_event_t()
    while true {
      guard yaml_parser_parse(&parser, &event) == 1 else {
        return .failure(YAMLSyntaxError.diagnostic(for: parser, in: source, readSoFar: readSoFar()))
      }
      defer { yaml_event_delete(&event) }
      let problem: Diagnostic?
      switch event.type {
      case YAML_STREAM_END_EVENT: return .success(tree)
      case YAML_DOCUMENT_START_EVENT: problem = startDocument(event)
      case YAML_SCALAR_EVENT: problem = addScalar(event)
      case YAML_SEQUENCE_START_EVENT:
        let start = event.data.sequence_start
        problem = openContainer(
          .sequence, event, anchor: start.anchor, tag: start.tag, isBlock: start.style != YAML_FLOW_SEQUENCE_STYLE)
      case YAML_MAPPING_START_EVENT:
        let start = event.data.mapping_start
        problem = openContainer(
          .mapping, event, anchor: start.anchor, tag: start.tag, isBlock: start.style != YAML_FLOW_MAPPING_STYLE)
      case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT: problem = closeContainer()
      case YAML_ALIAS_EVENT: problem = addAlias(event)
      default: problem = nil
      }
      if let problem { return .failure(problem) }
    }
  }

  private mutating func startDocument(_ event: yaml_event_t) -> Diagnostic? {
    documents += 1
    guard documents == 1 else {
      return Diagnostic(at: location(event), "a manifest is a single YAML document, but a second one starts here")
    }
    return nil
  }

  private mutating func addScalar(_ event: yaml_event_t) -> Diagnostic? {
    let scalar = event.data.scalar
    let bytes = UnsafeBufferPointer(start: scalar.value, count: scalar.length)
    if bytes.contains(0) {
      tree.problems.append(
        Diagnostic(
          at: location(event), "a string holds a NUL character ('\\0'), which no command, name or value can hold"))
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let isPlain: Bool
    switch YAMLTag(scalar.tag) {
    case nil: isPlain = scalar.style == YAML_PLAIN_SCALAR_STYLE
    case .string?, .nonSpecific?: isPlain = false
    case .typed?: isPlain = true
    case .container?:
      tree.problems.append(
        Diagnostic(at: location(event), "the tag '\(YAMLTag.written(scalar.tag))' does not fit a single value"))
      isPlain = false
    case .unknown?:
      reportUnreadableTag(scalar.tag, event)
      isPlain = false
    }
    let node = appendNode(.scalar, event, isPlain: isPlain, text: text)
    let weight = Weight(nodes: 1, bytes: scalar.length)
    if let anchor = scalar.anchor {
      latestAnchors[String(cString: anchor)] = node
      anchoredWeights[node] = weight
    }
    attach(node, weight: weight)
    return nil
  }

  private mutating func reportUnreadableTag(_ tag: UnsafeMutablePointer<yaml_char_t>?, _ event: yaml_event_t) {
    let written = YAMLTag.written(tag)
    tree.problems.append(
      Diagnostic(at: location(event), "unsupported tag '\(written)'; a manifest may use only \(YAMLTag.supported)"))
  }

  private mutating func openContainer(
    _ kind: YAMLNode.Kind, _ event: yaml_event_t, anchor: UnsafeMutablePointer<yaml_char_t>?,
    tag: UnsafeMutablePointer<yaml_char_t>?, isBlock: Bool
  ) -> Diagnostic? {
    guard open.count < Self.maximumDepth else {
      return Diagnostic(at: location(event), "nesting deeper than \(Self.maximumDepth) levels")
    }
    let node = appendNode(kind, event, isPlain: false, text: "")
    if let anchor { latestAnchors[String(cString: anchor)] = node }
    switch YAMLTag(tag) {
    case nil, .nonSpecific?, .container(kind)?: break
    case .unknown?: reportUnreadableTag(tag, event)
    default:
      let shape = kind == .mapping ? "a mapping" : "a list"
      tree.problems.append(Diagnostic(at: location(event), "the tag '\(YAMLTag.written(tag))' does not fit \(shape)"))
    }
    let weight = Weight(nodes: 1, bytes: 0)
    open.append(
      OpenContainer(
        node: node, pendingStart: pending.count, isAnchored: anchor != nil, isBlock: isBlock, weight: weight))
    return nil
  }

  private mutating func closeContainer() -> Diagnostic? {
    let container = open.removeLast()
    let node = Int(container.node)
    storeChildren(of: node, pending[container.pendingStart...])
    pending.removeSubrange(container.pendingStart...)
    if container.isAnchored { anchoredWeights[container.node] = container.weight }
    if container.isBlock { lastClosedBlock = container.node }
    attach(container.node, weight: container.weight)
    return nil
  }

  /// Moves a finished container's children into the tree, merge keys resolved. A function of
  /// its own, so that no slice of `pending` outlives it: one would make removing them from
  /// `pending` copy the whole stack, for every container.
  private mutating func storeChildren(of node: Int, _ written: ArraySlice<Int32>) {
    tree.nodes[node].childStart = Int32(tree.children.count)
    if tree.nodes[node].kind == .mapping, tree.holdsMergeKey(written) {
      let resolved = tree.resolvingMergeKeys(written, file: source.path)
      tree.nodes[node].childCount = Int32(resolved.count)
      tree.children.append(contentsOf: resolved)
    } else {
      tree.nodes[node].childCount = Int32(written.count)
      tree.children.append(contentsOf: written)
    }
  }

  private mutating func addAlias(_ event: yaml_event_t) -> Diagnostic? {
    let name = String(cString: event.data.alias.anchor)
    guard let target = latestAnchors[name] else {
      return Diagnostic(at: location(event), "unknown anchor '\(name)' (an alias must follow its '&\(name)')")
    }
    guard let weight = anchoredWeights[target] else {
      return Diagnostic(at: location(event), "alias '*\(name)' refers to a node that contains it (a recursive alias)")
    }
    expandedByAliases += weight
    let allowance = max(Self.aliasExpansionAllowance, 10 * tree.nodes.count)
    guard expandedByAliases.nodes <= allowance else {
      return Diagnostic(at: location(event), "aliases expand the document to more than \(allowance) nodes")
    }
    let textAllowance = max(Self.aliasTextAllowance, 10 * source.bytes.count)
    guard expandedByAliases.bytes <= textAllowance else {
      let mebibytes = textAllowance >> 20
      return Diagnostic(at: location(event), "aliases expand the document to more than \(mebibytes) MiB of text")
    }
    attach(target, weight: weight)
    return nil
  }

  private mutating func appendNode(_ kind: YAMLNode.Kind, _ event: yaml_event_t, isPlain: Bool, text: String) -> Int32 {
    tree.nodes.append(
      YAMLNode(
        kind: kind, isPlain: isPlain, line: Int32(event.start_mark.line + 1),
        column: Int32(event.start_mark.column + 1), childStart: 0, childCount: 0, text: text))
    return Int32(tree.nodes.count - 1)
  }

  private mutating func attach(_ node: Int32, weight: Weight) {
    if open.isEmpty {
      tree.root = node
    } else {
      pending.append(node)
      open[open.count - 1].weight += weight
    }
  }

  /// The innermost open container, the key it is written under, and the block container that
  /// ended as its last value: what a syntax error's hint lines a misplaced line up with.
  private func readSoFar() -> YAMLSyntaxError.ReadSoFar {
    var read = YAMLSyntaxError.ReadSoFar()
    guard let innermost = open.last else { return read }
    let written = pending[innermost.pendingStart...]
    read.innermost = openedSoFar(innermost, written)
    if let mapping = open.dropLast().lastIndex(where: { tree[$0.node].kind == .mapping }) {
      let end = mapping + 1 < open.count ? open[mapping + 1].pendingStart : pending.count
      if let outer = openedSoFar(open[mapping], pending[open[mapping].pendingStart..<end]), outer.awaitsValue {
        read.enclosingKey = outer.last
      }
    }
    if let last = written.last, last == lastClosedBlock, read.innermost?.awaitsValue == false {
      read.lastClosed = closedSoFar(last)
    }
    return read
  }

  private func openedSoFar(_ container: OpenContainer, _ written: ArraySlice<Int32>) -> YAMLSyntaxError.Container? {
    let kind = tree.nodes[Int(container.node)].kind
    guard let lastEntry = lastEntry(kind, written) else { return nil }
    let awaitsValue = kind == .mapping && written.count % 2 == 1
    return YAMLSyntaxError.Container(
      kind: kind, isBlock: container.isBlock, last: tree[lastEntry], awaitsValue: awaitsValue)
  }

  private func closedSoFar(_ node: Int32) -> YAMLSyntaxError.Container? {
    let kind = tree[node].kind
    guard let lastEntry = lastEntry(kind, tree.children(of: node)) else { return nil }
    return YAMLSyntaxError.Container(kind: kind, isBlock: true, last: tree[lastEntry], awaitsValue: false)
  }

  /// A mapping's key written last (merged keys come from earlier lines), a sequence's last item.
  private func lastEntry(_ kind: YAMLNode.Kind, _ children: ArraySlice<Int32>) -> Int32? {
    guard kind == .mapping else { return children.last }
    let keys = stride(from: children.startIndex, to: children.endIndex, by: 2).map { children[$0] }
    return keys.max { tree[$0].line < tree[$1].line }
  }

  private func location(_ event: yaml_event_t) -> SourceLocation {
    SourceLocation(file: source.path, line: event.start_mark.line + 1, column: event.start_mark.column + 1)
  }
}
