/// A `NAME=value` word of the command line (SPEC §15): a variable for `${{ vars.NAME }}`,
/// over the manifest's `vars`. A word is one when what comes before its first `=` is a
/// variable name (`[A-Za-z_][A-Za-z0-9_-]*`); any other word is a manifest or a job.
public enum VariableArgument {
  /// The name and value `word` sets, or nil when it is no variable.
  public static func parse(_ word: String) -> (name: String, value: String)? {
    guard let equals = word.firstIndex(of: "=") else { return nil }
    let name = word[..<equals]
    guard MatrixTemplate.isAxisName(name) else { return nil }
    return (String(name), String(word[word.index(after: equals)...]))
  }

  /// The words that are variables, gathered (a later one of a name wins), and the others in order.
  public static func split(_ words: [String]) -> (variables: [String: String], others: [String]) {
    var variables: [String: String] = [:]
    var others: [String] = []
    for word in words {
      if let (name, value) = parse(word) { variables[name] = value } else { others.append(word) }
    }
    return (variables, others)
  }
}
