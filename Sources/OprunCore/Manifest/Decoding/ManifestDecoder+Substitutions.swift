/// Where `${{ matrix.AXIS }}` (SPEC §11) and `${{ vars.NAME }}` (SPEC §15) may be written:
/// in the values of the keys that ``JobKey/takesSubstitutions`` — an axis of the job's
/// `matrix`, a variable the manifest or the command line sets — and in no other form. A
/// variable is replaced in the document as its scalar is claimed, so every value is read
/// with its variables in and only the axes are left for each instance. Every scalar holding a `${{` is found once, up front; the job keys that take
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
  /// reports the forms that are not `${{ matrix.AXIS }}` or `${{ vars.NAME }}` and the unknown
  /// variables, replaces the variables, and adds the axes named.
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
          + "the only substitutions are '${{ matrix.AXIS }}' and '${{ vars.NAME }}'")
    }
    for axis in template.axes { substitutions.append(Located(axis, at: location(node))) }
    let named = template.variables
    guard !named.isEmpty else { return }
    for name in named where variables[String(name)] == nil { reportUnknownVariable(String(name), at: node) }
    tree.nodes[Int(node)].text = template.replacingVariables(variables)
  }

  /// `unknown variable 'MDOE' (did you mean 'MODE'?)`, else the variables there are.
  private mutating func reportUnknownVariable(_ name: String, at node: Int32) {
    let known = variables.keys.sorted()
    let hint =
      Suggestion.closest(to: name, among: known).map(Suggestion.didYouMean)
      ?? (known.isEmpty
        ? "; no variable is set: write 'vars: {\(name): VALUE}' or give \(name)=VALUE on the command line"
        : "; the variables are \(Listing.words(known, quoted: true, conjunction: "and"))")
    report(node, "unknown variable '\(name)' in '${{ vars.\(name) }}'\(hint)")
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
          + "'completion', 'cwd', 'env' values, 'inputs', 'outputs', 'description' and 'dependencies' of a job")
    }
  }
}

extension JobKey {
  /// The keys whose values may hold `${{ matrix.AXIS }}` and `${{ vars.NAME }}`: for `env`, its values, not its names.
  var takesSubstitutions: Bool {
    switch self {
    case .command, .commands, .completion, .cwd, .env, .description, .dependencies, .inputs, .outputs: true
    default: false
    }
  }
}
