/// The top-level keys of a manifest meant to be shared (SPEC §15): `vars`, which
/// `${{ vars.NAME }}` names, and `include`, the manifests whose jobs join this one.
extension ManifestDecoder {
  /// Reads `vars` (wherever it is written) into ``variables``, with ``givenVariables`` over them.
  mutating func decodeVariables(_ root: Int32) {
    variables = givenVariables
    guard
      let value = tree.entries(of: root).first(where: { tree[$0.key].kind == .scalar && tree[$0.key].text == "vars" })?
        .value, !tree[value].isNull
    else { return }
    guard tree[value].kind == .mapping else {
      reportWrongType(value, expected: "a mapping of variable names to values")
      return
    }
    var firstKeys: [String: Int32] = [:]
    for (keyNode, item) in tree.entries(of: value) {
      guard let name = keyName(keyNode) else { continue }
      guard MatrixTemplate.isAxisName(name) else {
        report(
          keyNode, "variable name '\(name)' must be letters, digits, '_' and '-', not starting with a digit or '-'")
        continue
      }
      if let first = firstKeys.updateValue(keyNode, forKey: name) {
        firstKeys[name] = first
        reportDuplicateKey(keyNode, word: name, firstWrittenAt: first, context: " in 'vars'")
        continue
      }
      guard let text = string(item, expected: "a value for variable '\(name)'") else { continue }
      if variables[name] == nil { variables[name] = text }
    }
  }

  /// `include`: a list of paths, or of `{path, prefix}`; the prefix is the file's stem
  /// unless written. A prefix is a name with no `:`, `[`, `]` or blank: it is put in front of
  /// every name of the file.
  mutating func includes(_ node: Int32) -> [IncludeSpec] {
    guard tree[node].kind == .sequence else {
      reportWrongType(node, expected: "a list of manifests to include (paths, or mappings with 'path' and 'prefix')")
      return []
    }
    var found: [IncludeSpec] = []
    for item in tree.children(of: node) {
      if let entry = include(item) { found.append(entry) }
    }
    return found
  }

  private mutating func include(_ node: Int32) -> IncludeSpec? {
    var path: Located<String>?
    var prefix: Located<String>?
    switch tree[node].kind {
    case .scalar:
      path = string(node, expected: "a manifest's path").map { Located($0, at: location(node)) }
    case .sequence:
      reportWrongType(node, expected: "a manifest's path or a mapping with 'path' and 'prefix'")
      return nil
    case .mapping:
      var seen = KeysRead<IncludeKey>()
      for (keyNode, value) in tree.entries(of: node) {
        guard let key: IncludeKey = schemaKey(keyNode, of: node, seen: &seen, context: " in 'include'") else {
          continue
        }
        let text = string(value, expected: key == .path ? "a manifest's path" : "a prefix")
        switch key {
        case .path: path = text.map { Located($0, at: location(value)) }
        case .prefix: prefix = text.map { Located($0, at: location(value)) }
        }
      }
      if !seen.containsOrMeant(.path) {
        report(node, "an entry of 'include' has no 'path'")
        return nil
      }
    }
    guard let path else { return nil }
    guard !path.value.isEmpty else {
      report(Diagnostic(at: path.location, "an included manifest's path must not be empty"))
      return nil
    }
    let chosen = prefix ?? Located(Self.stem(of: path.value), at: path.location)
    guard Self.isPrefix(chosen.value) else {
      report(
        Diagnostic(
          at: chosen.location,
          "'\(chosen.value)' cannot prefix the names of an included manifest: a prefix is non-empty, "
            + "without ':', '[', ']' or blanks\(prefix == nil ? "; write 'prefix: NAME'" : "")"))
      return nil
    }
    return IncludeSpec(path: path, prefix: chosen, location: location(node))
  }

  static func isPrefix(_ text: String) -> Bool {
    !text.isEmpty && !text.unicodeScalars.contains { $0 == ":" || $0 == "[" || $0 == "]" || $0.value <= 0x20 }
  }
}
