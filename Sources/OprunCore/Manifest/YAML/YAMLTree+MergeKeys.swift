/// YAML 1.1 merge keys (`<<: *common`, `<<: [*a, *b]`), resolved as each mapping ends, so that
/// every reader of the tree sees a mapping's keys as if they had been written in it.
///
/// Precedence is YAML 1.1's: a key written in the mapping itself wins over a merged one, and in
/// a list of merged mappings the earlier one wins. Merged entries are the merged mapping's own
/// nodes, shared and not copied: a diagnostic about a merged key points where that key is
/// written, and merging costs no more than the aliases it names, which the builder already
/// counts against its limits.
extension YAMLTree {
  /// Whether a key is the merge key: `<<` written plain, as YAML 1.1 resolves it.
  func isMergeKey(_ key: Int32) -> Bool {
    let node = self[key]
    return node.kind == .scalar && node.isPlain && node.text == "<<"
  }

  /// Whether a mapping's `pairs` (key, value, key, value…) hold a merge key.
  func holdsMergeKey(_ pairs: ArraySlice<Int32>) -> Bool {
    stride(from: pairs.startIndex, to: pairs.endIndex, by: 2).contains { isMergeKey(pairs[$0]) }
  }

  /// A mapping's `pairs` with each merge key replaced, where it is written, by the entries it
  /// merges that the mapping does not already have. A merge of something other than a mapping
  /// is recorded in ``problems`` at its `<<` and merges nothing.
  mutating func resolvingMergeKeys(_ pairs: ArraySlice<Int32>, file: String) -> [Int32] {
    var present = Set<String>()
    for index in stride(from: pairs.startIndex, to: pairs.endIndex, by: 2) where !isMergeKey(pairs[index]) {
      if self[pairs[index]].kind == .scalar { present.insert(self[pairs[index]].text) }
    }
    var resolved: [Int32] = []
    resolved.reserveCapacity(pairs.count)
    var firstMergeKey: Int32?
    for index in stride(from: pairs.startIndex, to: pairs.endIndex, by: 2) {
      let (key, value) = (pairs[index], pairs[index + 1])
      guard isMergeKey(key) else {
        resolved += [key, value]
        continue
      }
      if let first = firstMergeKey {
        let firstNode = self[first]
        report(
          key, file: file,
          "duplicate key '<<' (first written at line \(firstNode.line), column \(firstNode.column)); "
            + "merge several mappings with '<<: [*a, *b]'")
        continue
      }
      firstMergeKey = key
      for source in mergedMappings(value, mergeKey: key, file: file) {
        for (mergedKey, mergedValue) in entries(of: source) {
          if self[mergedKey].kind == .scalar, !present.insert(self[mergedKey].text).inserted { continue }
          resolved += [mergedKey, mergedValue]
        }
      }
    }
    return resolved
  }

  /// The mappings a merge key's value names, in order; anything else is reported.
  private mutating func mergedMappings(_ value: Int32, mergeKey: Int32, file: String) -> [Int32] {
    switch self[value].kind {
    case .mapping: return [value]
    case .sequence:
      let items = Array(children(of: value))
      if let stray = items.first(where: { self[$0].kind != .mapping }) {
        report(mergeKey, file: file, "'<<' merges mappings, but its list holds \(shape(of: stray))")
      }
      return items.filter { self[$0].kind == .mapping }
    case .scalar:
      report(mergeKey, file: file, "'<<' merges a mapping or a list of mappings, found \(shape(of: value))")
      return []
    }
  }

  private func shape(of node: Int32) -> String {
    switch self[node].kind {
    case .mapping: "a mapping"
    case .sequence: "a list"
    case .scalar: self[node].isNull ? "nothing" : "'\(self[node].text)'"
    }
  }

  private mutating func report(_ node: Int32, file: String, _ message: String) {
    let location = SourceLocation(file: file, line: Int(self[node].line), column: Int(self[node].column))
    problems.append(Diagnostic(at: location, message))
  }
}
