/// Where `${{ matrix.AXIS }}` may be written (SPEC §11): in the values of the keys that
/// ``JobKey/takesSubstitutions`` of a job with a `matrix`, naming one of its axes, and in no
/// other form. Every scalar holding a `${{` is found once, up front; the job keys that take
/// substitutions claim theirs, and whatever is left over is reported where it is written.
extension ManifestDecoder {
  static func scalarsWithSubstitutions(in tree: YAMLTree) -> [Int32] {
    var found: [Int32] = []
    for (index, node) in tree.nodes.enumerated()
    where node.kind == .scalar && MatrixTemplate.mayHoldSubstitutions(node.text) {
      found.append(Int32(index))
    }
    return found
  }

  /// Claims the scalars of `value` (the value of `key` in a job) that hold substitutions,
  /// reports the forms that are not `${{ matrix.AXIS }}`, and adds the axes named.
  mutating func collectSubstitutions(
    in value: Int32, of key: JobKey, into substitutions: inout [Located<Substring>]
  ) {
    guard key.takesSubstitutions else { return }
    switch tree[value].kind {
    case .scalar: claimSubstitutions(in: value, into: &substitutions)
    case .sequence:
      for item in tree.children(of: value) where tree[item].kind == .scalar {
        claimSubstitutions(in: item, into: &substitutions)
      }
    case .mapping:
      for (_, item) in tree.entries(of: value) where tree[item].kind == .scalar {
        claimSubstitutions(in: item, into: &substitutions)
      }
    }
  }

  private mutating func claimSubstitutions(in node: Int32, into substitutions: inout [Located<Substring>]) {
    guard MatrixTemplate.mayHoldSubstitutions(tree[node].text) else { return }
    allowedSubstitutions.insert(node)
    let template = MatrixTemplate(tree[node].text)
    for form in template.unsupported {
      report(
        node,
        "unsupported expression '\(DisplayText.escaped(String(form)))'; "
          + "the only substitution is '${{ matrix.AXIS }}'")
    }
    for axis in template.axes { substitutions.append(Located(axis, at: location(node))) }
  }

  /// Reports each substitution of a job without a matrix, and each that names no axis of it.
  mutating func checkSubstitutions(_ substitutions: [Located<Substring>], of job: JobSpec) {
    guard let matrix = job.matrix else {
      for substitution in substitutions {
        report(
          Diagnostic(
            at: substitution.location,
            "'${{ matrix.\(substitution.value) }}' in job '\(job.name)', which has no 'matrix'"))
      }
      return
    }
    let axes = matrix.axes.map(\.name.value)
    for substitution in substitutions where !axes.contains(String(substitution.value)) {
      let name = String(substitution.value)
      let hint =
        Suggestion.closest(to: name, among: axes).map(Suggestion.didYouMean)
        ?? "; the axes are \(Listing.words(axes, quoted: true, conjunction: "and"))"
      report(Diagnostic(at: substitution.location, "unknown matrix axis '\(name)' in job '\(job.name)'\(hint)"))
    }
  }

  /// Reports every `${{` that no job key claimed: written in a key that takes none.
  mutating func reportMisplacedSubstitutions() {
    for node in scalarsWithSubstitutions where !allowedSubstitutions.contains(node) {
      report(
        node,
        "'${{ ... }}' is not replaced here: substitutions are made only in 'command', 'commands', "
          + "'completion', 'cwd', 'env' values, 'inputs', 'outputs', 'description' and 'dependencies' of a job "
          + "with a 'matrix'")
    }
  }
}

extension JobKey {
  /// The keys whose values may hold `${{ matrix.AXIS }}`: for `env`, its values, not its names.
  var takesSubstitutions: Bool {
    switch self {
    case .command, .commands, .completion, .cwd, .env, .description, .dependencies, .inputs, .outputs: true
    default: false
    }
  }
}
