/// `resources` of a job, a queue or `defaults`, and the top-level `budget` (SPEC §12).
extension ManifestDecoder {
  /// A mapping of `cpus` and `memory`; `owner` names it in messages (`'resources' of job
  /// 'link'`, `'budget'`). What is invalid in it is reported at the value and left out.
  mutating func resources(_ node: Int32, of owner: String) -> ResourceSpec {
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping with 'cpus' and 'memory' for \(owner)")
      return ResourceSpec()
    }
    var spec = ResourceSpec()
    var seen = KeysRead<ResourceKey>()
    for (keyNode, value) in tree.entries(of: node) {
      guard let key: ResourceKey = schemaKey(keyNode, of: node, seen: &seen, context: " in \(owner)") else { continue }
      guard !tree[value].isNull else { continue }
      switch key {
      case .cpus: spec.cpus = cpuCount(value).map { Located($0, at: location(value)) }
      case .memory: spec.memory = memorySize(value).map { Located($0, at: location(value)) }
      }
    }
    return spec
  }

  /// `cpus`: a whole number, at least 1.
  private mutating func cpuCount(_ node: Int32) -> Int? {
    guard tree[node].kind == .scalar else {
      reportWrongType(node, expected: "a positive whole number of CPUs for 'cpus'")
      return nil
    }
    guard let value = Int(tree[node].text), value >= 1 else {
      report(node, "cpus must be a positive whole number like 1, 2 or 8, found '\(tree[node].text)'")
      return nil
    }
    return value
  }

  /// `memory`: a size (``ByteSize``).
  private mutating func memorySize(_ node: Int32) -> Int? {
    guard tree[node].kind == .scalar, let bytes = ByteSize.bytes(tree[node].text) else {
      guard tree[node].kind == .scalar else {
        reportWrongType(node, expected: "\(ByteSize.forms) for 'memory'")
        return nil
      }
      report(node, "memory must be \(ByteSize.forms), found '\(tree[node].text)'")
      return nil
    }
    return bytes
  }
}
