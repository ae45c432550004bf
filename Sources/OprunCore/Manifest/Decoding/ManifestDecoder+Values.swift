/// Typed readers for scalar and list values. Each returns nil after reporting a value that
/// does not fit; a null value never reaches them (the caller treats it as absent).
extension ManifestDecoder {
  /// Any scalar as text: `command: true` runs `true`.
  mutating func string(_ node: Int32, expected: String) -> String? {
    guard tree[node].kind == .scalar else {
      reportWrongType(node, expected: expected)
      return nil
    }
    return tree[node].text
  }

  /// A non-empty name.
  mutating func name(_ node: Int32, of what: String) -> String? {
    guard let text = string(node, expected: Self.withArticle("\(what) name")) else { return nil }
    guard !text.isEmpty else {
      report(node, "\(Self.withArticle("\(what) name")) must not be empty")
      return nil
    }
    return text
  }

  mutating func integer(_ node: Int32, key: String) -> Int? {
    guard tree[node].kind == .scalar, let value = Int(tree[node].text) else {
      reportWrongValue(node, expected: "a whole number for '\(key)'")
      return nil
    }
    return value
  }

  /// `max-concurrent`: at least 1.
  mutating func concurrencyLimit(_ node: Int32) -> Located<Int>? {
    guard let value = integer(node, key: "max-concurrent") else { return nil }
    guard value >= 1 else {
      report(node, "max-concurrent must be at least 1, found \(value)")
      return nil
    }
    return Located(value, at: location(node))
  }

  /// `retries`: zero or more.
  mutating func retryCount(_ node: Int32) -> Int? {
    guard let value = integer(node, key: "retries") else { return nil }
    guard value >= 0 else {
      report(node, "retries must not be negative, found \(value)")
      return nil
    }
    return value
  }

  mutating func boolean(_ node: Int32, key: String) -> Bool? {
    guard tree[node].kind == .scalar, tree[node].isPlain, let value = Self.boolean(tree[node].text) else {
      reportWrongValue(node, expected: "true or false for '\(key)'")
      return nil
    }
    return value
  }

  /// A duration in seconds, greater than zero.
  mutating func duration(_ node: Int32, key: String) -> Double? {
    guard tree[node].kind == .scalar else {
      reportWrongType(node, expected: "a duration for '\(key)'")
      return nil
    }
    let text = tree[node].text
    guard let seconds = Duration.seconds(text), seconds > 0 else {
      report(
        node,
        "bad duration '\(text)' for '\(key)'; write a positive duration like 500ms, 30s, 5m, 1h30m or a number of seconds"
      )
      return nil
    }
    return seconds
  }

  /// One of a fixed set of words, with a suggestion and the full list when it is not.
  mutating func word<Value>(
    _ node: Int32, kind: String, among values: [(word: String, value: Value)], alternatives: String = ""
  ) -> Value? {
    guard tree[node].kind == .scalar else {
      reportWrongType(node, expected: Self.withArticle(kind))
      return nil
    }
    let text = tree[node].text
    if let match = values.first(where: { $0.word == text }) { return match.value }
    let words = values.map(\.word)
    let suggestion = Suggestion.closest(to: text, among: words).map(Suggestion.didYouMean) ?? ""
    report(node, "unknown \(kind) '\(text)'\(suggestion); expected \(Listing.words(words))\(alternatives)")
    return nil
  }

  /// A priority's word or number; quoted (`'4'`) or not, as a reader would take it.
  mutating func priority(_ node: Int32) -> Priority? {
    if tree[node].kind == .scalar, let number = Int(tree[node].text) {
      guard let priority = Priority(rawValue: number) else {
        report(node, "unknown priority '\(number)'; expected \(Self.priorityChoices)")
        return nil
      }
      return priority
    }
    return word(
      node, kind: "priority", among: Priority.allCases.map { ($0.word, $0) }, alternatives: Self.priorityNumbers)
  }

  private static var priorityNumbers: String {
    " (or \(Priority.allCases.map { String($0.rawValue) }.joined(separator: ", ")))"
  }

  private static var priorityChoices: String {
    Listing.words(Priority.allCases.map(\.word)) + priorityNumbers
  }

  mutating func qualityOfService(_ node: Int32) -> QualityOfService? {
    word(node, kind: "QoS", among: QualityOfService.allCases.map { ($0.rawValue, $0) })
  }

  /// A list of job names; a single name gets a hint to write it as a list.
  mutating func jobNames(_ node: Int32) -> [Located<String>] {
    guard tree[node].kind == .sequence else {
      let isName = tree[node].kind == .scalar && describe(node) == "a string"
      let hint = isName ? "; write [\(tree[node].text)] for a single dependency" : ""
      reportWrongType(node, expected: "a list of job names", hint: hint)
      return []
    }
    var names: [Located<String>] = []
    names.reserveCapacity(Int(tree[node].childCount))
    for item in tree.children(of: node) {
      guard tree[item].kind == .scalar, !tree[item].isNull else {
        reportWrongType(item, expected: "a job name")
        continue
      }
      names.append(Located(tree[item].text, at: location(item)))
    }
    return names
  }

  /// An `env` mapping; values are any scalar as text, null as the empty string.
  mutating func environment(_ node: Int32) -> [EnvironmentEntry] {
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping of environment variables")
      return []
    }
    var entries: [EnvironmentEntry] = []
    var firstKeys: [String: Int32] = [:]
    for (keyNode, value) in tree.entries(of: node) {
      guard let name = keyName(keyNode) else { continue }
      guard !name.isEmpty, !name.contains("=") else {
        report(keyNode, "bad environment variable name '\(name)': it must be non-empty and have no '='")
        continue
      }
      if let first = firstKeys.updateValue(keyNode, forKey: name) {
        firstKeys[name] = first
        reportDuplicateKey(keyNode, word: name, firstWrittenAt: first, context: " in 'env'")
        continue
      }
      let text = tree[value].isNull ? "" : string(value, expected: "a value for environment variable '\(name)'")
      guard let text else { continue }
      let entryLength = name.utf8.count + 1 + text.utf8.count
      guard ExecLimits.fitsOneString(entryLength) else {
        report(
          keyNode, "environment variable '\(name)' is \(entryLength) bytes as NAME=value; \(ExecLimits.stringLimitText)"
        )
        continue
      }
      entries.append(EnvironmentEntry(name, text))
    }
    return entries
  }
}
