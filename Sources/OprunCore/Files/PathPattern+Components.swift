/// One component of a pattern's path, as a walk matches it.
public enum PathPatternComponent: Hashable, Sendable {
  /// A name matched exactly.
  case literal(String)
  /// A name matched by its `*`, `?` and `[...]` (fnmatch(3)), within this one component.
  case wildcard(String)
  /// `**`: any number of components, none included.
  case anyDepth
}

extension PathPattern {
  /// The pattern's components, `.` and empty ones (from `//` or a trailing `/`) left out.
  public var components: [PathPatternComponent] {
    body.split(separator: "/").compactMap { part in
      if part == "." { return nil }
      if part == "**" { return .anyDepth }
      return Self.hasWildcards(part) ? .wildcard(String(part)) : .literal(String(part))
    }
  }

  /// Whether it starts at the root rather than at the job's working directory.
  public var isAbsolute: Bool { body.hasPrefix("/") }

  /// Whether it ends in `/`: then only a folder matches it.
  public var namesFolder: Bool { body.hasSuffix("/") }

  /// The names before the first wildcard component: the folder a walk starts from (relative
  /// to where the pattern is), and the components matched from there. A pattern with no
  /// wildcard is all prefix.
  public var literalPrefix: (folder: [String], rest: [PathPatternComponent]) {
    let all = components
    let firstWildcard = all.firstIndex { if case .literal = $0 { false } else { true } } ?? all.count
    let folder = all[..<firstWildcard].map { component -> String in
      if case .literal(let name) = component { return name }
      return ""
    }
    return (folder, Array(all[firstWildcard...]))
  }

  /// Whether a path component holds a character fnmatch(3) treats specially.
  public static func hasWildcards(_ component: Substring) -> Bool {
    component.utf8.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") }
  }
}
