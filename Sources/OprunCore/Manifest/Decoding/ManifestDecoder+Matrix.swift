/// Reading a job's `matrix` (SPEC §11). What needs the whole matrix — its size, what
/// `exclude` matches, an `include` that repeats an instance — is checked when it is
/// expanded (``MatrixExpansion``).
extension ManifestDecoder {
  mutating func matrix(_ node: Int32, key: Int32, job: String) -> MatrixSpec {
    let errorsBefore = diagnostics.errorCount
    var spec = MatrixSpec(location: location(key))
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping of axes to lists of values")
      spec.isBroken = true
      return spec
    }
    var firstKeys: [String: Int32] = [:]
    var include: Int32?
    var exclude: Int32?
    for (keyNode, value) in tree.entries(of: node) {
      guard let name = keyName(keyNode) else { continue }
      if let first = firstKeys.updateValue(keyNode, forKey: name) {
        firstKeys[name] = first
        reportDuplicateKey(keyNode, word: name, firstWrittenAt: first, context: " in the matrix of job '\(job)'")
        continue
      }
      switch name {
      case "include": include = value
      case "exclude": exclude = value
      default: spec.axes.append(axis(named: name, at: keyNode, value, job: job))
      }
    }
    if spec.axes.isEmpty {
      report(key, "the matrix of job '\(job)' has no axis; give it one, as 'os: [linux, macos]'")
    }
    if let exclude { spec.exclude = combinations(exclude, of: spec, kind: "exclude", job: job) }
    if let include { spec.include = combinations(include, of: spec, kind: "include", job: job) }
    spec.isBroken = diagnostics.errorCount > errorsBefore
    return spec
  }

  private mutating func axis(named name: String, at keyNode: Int32, _ node: Int32, job: String) -> MatrixAxis {
    var axis = MatrixAxis(name: Located(name, at: location(keyNode)), values: [])
    if !MatrixTemplate.isAxisName(name) {
      report(
        keyNode,
        "bad axis name '\(DisplayText.escaped(name))' in the matrix of job '\(job)': an axis name starts with a "
          + "letter or '_' and holds only letters, digits, '_' and '-'")
    }
    guard tree[node].kind == .sequence else {
      reportWrongType(node, expected: "a list of values for axis '\(name)'")
      return axis
    }
    let items = tree.children(of: node)
    if items.isEmpty { report(node, "axis '\(name)' of job '\(job)' has no values") }
    var firstItems: [String: Int32] = [:]
    for item in items {
      guard let value = matrixValue(item, axis: name) else { continue }
      if let first = firstItems.updateValue(item, forKey: value) {
        firstItems[value] = first
        report(
          item,
          "value '\(value)' is listed twice in axis '\(name)' of job '\(job)' "
            + "(first at line \(tree[first].line), column \(tree[first].column))")
        continue
      }
      axis.values.append(Located(value, at: location(item)))
    }
    return axis
  }

  /// A value as written; it becomes part of an instance's name, so it is not empty and has
  /// none of the characters that would make that name ambiguous or hard to type.
  private mutating func matrixValue(_ node: Int32, axis: String) -> String? {
    guard tree[node].kind == .scalar else {
      reportWrongType(node, expected: "a value for axis '\(axis)'")
      return nil
    }
    let text = tree[node].text
    guard !text.isEmpty else {
      report(node, "a value of axis '\(axis)' must not be empty")
      return nil
    }
    if let bad = text.unicodeScalars.first(where: Self.isForbiddenInValue) {
      report(
        node,
        "value '\(DisplayText.escaped(text))' of axis '\(axis)' holds \(Self.describe(forbidden: bad)); "
          + "a matrix value holds no ',', '[', ']', blank or control character")
      return nil
    }
    return text
  }

  private static func describe(forbidden scalar: Unicode.Scalar) -> String {
    if scalar.properties.generalCategory == .control { return "a control character" }
    if scalar.properties.isWhitespace { return "a blank" }
    return "'\(scalar)'"
  }

  private static func isForbiddenInValue(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case ",", "[", "]": true
    default: scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    }
  }

  /// The entries of `exclude` or `include`; an entry of `include` names every axis.
  private mutating func combinations(_ node: Int32, of spec: MatrixSpec, kind: String, job: String)
    -> [MatrixCombination]
  {
    guard !tree[node].isNull else { return [] }
    guard tree[node].kind == .sequence else {
      reportWrongType(node, expected: "a list of mappings of axes to values for '\(kind)'")
      return []
    }
    let axisNames = spec.axes.map(\.name.value)
    var entries: [MatrixCombination] = []
    for item in tree.children(of: node) {
      guard tree[item].kind == .mapping else {
        reportWrongType(item, expected: "a mapping of axes to values in '\(kind)'")
        continue
      }
      var entry = MatrixCombination(location: location(item), values: [])
      var named: Set<String> = []
      for (keyNode, value) in tree.entries(of: item) {
        guard let axis = keyName(keyNode) else { continue }
        guard axisNames.contains(axis) else {
          let hint =
            Suggestion.closest(to: axis, among: axisNames).map(Suggestion.didYouMean)
            ?? "; the axes are \(Listing.words(axisNames, quoted: true, conjunction: "and"))"
          report(keyNode, "unknown axis '\(DisplayText.escaped(axis))' in an '\(kind)' entry of job '\(job)'\(hint)")
          continue
        }
        guard named.insert(axis).inserted else {
          reportDuplicateKey(
            keyNode, word: axis, firstWrittenAt: nil, context: " in an '\(kind)' entry of job '\(job)'")
          continue
        }
        guard let text = matrixValue(value, axis: axis) else { continue }
        entry.values.append((Located(axis, at: location(keyNode)), Located(text, at: location(value))))
      }
      if kind == "include" {
        let missing = axisNames.filter { !named.contains($0) }
        if !missing.isEmpty {
          report(
            item,
            "this 'include' entry of job '\(job)' gives no value for "
              + "\(missing.count == 1 ? "axis" : "axes") \(Listing.words(missing, quoted: true, conjunction: "and")); "
              + "an 'include' entry gives every axis a value")
        }
      }
      entries.append(entry)
    }
    return entries
  }
}
