/// Turns a ``YAMLTree`` into a ``Manifest``, collecting every problem instead of stopping
/// at the first: a value that is wrong is reported and left out, and decoding goes on.
struct ManifestDecoder {
  /// The document; a scalar's `${{ vars.NAME }}` are replaced in it when its key claims it,
  /// before its value is read.
  var tree: YAMLTree
  let path: String
  /// The variables given from outside, over the manifest's own `vars`.
  let givenVariables: [String: String]
  /// What `${{ vars.NAME }}` may name: `vars` with ``givenVariables`` over them.
  var variables: [String: String] = [:]
  private(set) var diagnostics = DiagnosticCollector()
  /// The scalars that hold a `${{`, in node order; empty for almost every manifest.
  let scalarsWithSubstitutions: [Int32]
  /// Those of ``scalarsWithSubstitutions`` read where a substitution is allowed.
  var allowedSubstitutions: Set<Int32> = []
  /// What each unknown key met was answered, by the schema it was met in: a key misspelt by
  /// 100,000 jobs is looked up once (a search and a listing of the keys per job took 2.6 s of
  /// `oprun check`).
  private var meantKeys: [MeantKeySearch: MeantKey] = [:]

  private struct MeantKeySearch: Hashable {
    var schema: ObjectIdentifier
    var word: String
  }

  /// The key an unknown one may mean, and what its message ends with.
  private struct MeantKey {
    var key: String?
    var hint: String
  }

  private static func meantKey(by word: String, among words: [String]) -> MeantKey {
    let key = Suggestion.closestKey(to: word, among: words)
    let hint =
      word.hasPrefix("x-")
      ? " (keys starting with 'x-' are ignored only at the top level of the manifest)"
      : key.map(Suggestion.didYouMean) ?? " (expected \(Listing.words(words, quoted: true)))"
    return MeantKey(key: key, hint: hint)
  }

  init(tree: YAMLTree, path: String, variables: [String: String] = [:]) {
    self.tree = tree
    self.path = path
    self.givenVariables = variables
    self.diagnostics = tree.problems
    self.scalarsWithSubstitutions = Self.scalarsWithSubstitutions(in: tree)
  }

  func location(_ node: Int32) -> SourceLocation {
    let node = tree[node]
    return SourceLocation(file: path, line: Int(node.line), column: Int(node.column))
  }

  mutating func report(_ node: Int32, _ message: String) {
    diagnostics.append(Diagnostic(at: location(node), message))
  }

  mutating func report(_ diagnostic: Diagnostic) {
    diagnostics.append(diagnostic)
  }

  mutating func reportWrongType(_ node: Int32, expected: String, hint: String = "") {
    report(node, "expected \(expected), found \(describe(node))\(hint)")
  }

  /// Like ``reportWrongType(_:expected:hint:)``, but quoting a scalar: "found '1.5'".
  mutating func reportWrongValue(_ node: Int32, expected: String) {
    guard tree[node].kind == .scalar else { return reportWrongType(node, expected: expected) }
    report(node, "expected \(expected), found '\(tree[node].text)'")
  }

  /// What a node is, in the words of "expected …, found …".
  func describe(_ node: Int32) -> String {
    let node = tree[node]
    switch node.kind {
    case .mapping: return "a mapping"
    case .sequence: return "a list"
    case .scalar:
      if node.isNull { return node.text.isEmpty ? "nothing" : "null" }
      guard node.isPlain else { return "a string" }
      if Self.isNumber(node.text) { return "a number" }
      if Self.boolean(node.text) != nil { return "a boolean" }
      return "a string"
    }
  }

  static func isNumber(_ text: String) -> Bool {
    Double(text) != nil && text.allSatisfy { "0123456789+-.eE".contains($0) }
  }

  /// YAML's core-schema booleans.
  static func boolean(_ text: String) -> Bool? {
    switch text {
    case "true", "True", "TRUE": true
    case "false", "False", "FALSE": false
    default: nil
    }
  }

  /// The schema key a mapping key names, or nil after reporting why it is not one: not a
  /// scalar, unknown (with a suggestion, which `seen` records as meant), or written twice
  /// (reported at the second).
  mutating func schemaKey<Key: ManifestKey>(
    _ keyNode: Int32, of mapping: Int32, seen: inout KeysRead<Key>, context: @autoclosure () -> String
  ) -> Key? {
    guard let word = keyName(keyNode) else { return nil }
    guard let key = Key.byWord[word] else {
      let search = MeantKeySearch(schema: ObjectIdentifier(Key.self), word: word)
      let answer = meantKeys[search] ?? Self.meantKey(by: word, among: Key.allCases.map(\.word))
      meantKeys[search] = answer
      report(keyNode, "unknown key '\(word)'\(context())\(answer.hint)")
      if let meant = answer.key.flatMap({ Key.byWord[$0] }) { seen.insertMeant(meant) }
      return nil
    }
    guard seen.insert(key) else {
      let first = tree.entries(of: mapping).first { tree[$0.key].kind == .scalar && tree[$0.key].text == word }?.key
      reportDuplicateKey(keyNode, word: word, firstWrittenAt: first, context: context())
      return nil
    }
    return key
  }

  /// A mapping key's text, or nil after reporting a key that is not a scalar.
  mutating func keyName(_ keyNode: Int32) -> String? {
    guard tree[keyNode].kind == .scalar else {
      report(keyNode, "expected a key name, found \(describe(keyNode))")
      return nil
    }
    return tree[keyNode].text
  }

  /// Reports `keyNode` as a second `word` in its mapping. Callers whose mappings may be long
  /// (`env`, `queues`) remember each key's first node, so that a mapping of many keys written
  /// twice costs one look-up per key, not a scan of the mapping.
  mutating func reportDuplicateKey(_ keyNode: Int32, word: String, firstWrittenAt first: Int32?, context: String) {
    let previous = first.map { " (first written at line \(tree[$0].line), column \(tree[$0].column))" } ?? ""
    report(keyNode, "duplicate key '\(word)'\(context)\(previous)")
  }

  /// `a thing` or `an other thing`: the article of every noun a manifest's messages use.
  static func withArticle(_ noun: String) -> String {
    (noun.first.map { "aeiouAEIOU".contains($0) } ?? false ? "an " : "a ") + noun
  }
}
