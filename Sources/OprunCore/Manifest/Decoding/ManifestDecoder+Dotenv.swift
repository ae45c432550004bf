extension ManifestDecoder {
  /// `dotenv`: a list of file paths (or one path), each optionally ending in `!`.
  mutating func dotenvFiles(_ node: Int32) -> [DotenvFile] {
    let items: [Int32]
    switch tree[node].kind {
    case .scalar: items = [node]
    case .sequence: items = Array(tree.children(of: node))
    case .mapping:
      reportWrongType(node, expected: "a list of dotenv files, such as [.env, .env.local]")
      return []
    }
    return items.compactMap { item in
      guard var path = string(item, expected: "the path of a dotenv file") else { return nil }
      let required = path.hasSuffix("!")
      if required { path.removeLast() }
      guard !path.isEmpty else {
        report(item, "a dotenv file's path must not be empty")
        return nil
      }
      return DotenvFile(path: path, required: required, location: location(item))
    }
  }

  /// `secrets`: a list of environment variable names.
  mutating func secretNames(_ node: Int32) -> [Located<String>] {
    guard tree[node].kind == .sequence else {
      reportWrongType(node, expected: "a list of environment variable names, such as [API_TOKEN]")
      return []
    }
    return tree.children(of: node).compactMap { item in
      guard let name = string(item, expected: "an environment variable name") else { return nil }
      guard !name.isEmpty, !name.contains("=") else {
        report(item, "bad environment variable name '\(name)': it must be non-empty and have no '='")
        return nil
      }
      return Located(name, at: location(item))
    }
  }
}
