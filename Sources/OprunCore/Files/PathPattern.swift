/// One entry of a job's `inputs` or `outputs` (SPEC §10): a path or glob pattern, relative
/// to the job's working directory unless absolute; with a leading `!`, an exclusion.
public struct PathPattern: Hashable, Sendable {
  /// As written, with any leading `!`.
  public var text: String
  /// It began with `!`: it removes what it matches from what the patterns before it matched.
  public var isExclusion: Bool
  /// Without the `!`; a trailing `/` says it names a folder.
  public var body: String

  /// The pattern `text`, or why it cannot be one.
  public static func parse(_ text: String) -> Result<PathPattern, PathPatternError> {
    if text.isEmpty { return .failure(.empty) }
    if text.utf8.contains(0) { return .failure(.containsNUL) }
    let isExclusion = text.hasPrefix("!")
    let body = isExclusion ? String(text.dropFirst()) : text
    if body.isEmpty { return .failure(.onlyExclamation) }
    for component in body.split(separator: "/") where !PathPattern.bracketsAreClosed(component) {
      return .failure(.unclosedBracket)
    }
    return .success(PathPattern(text: text, isExclusion: isExclusion, body: body))
  }

  /// Whether every `[` in `component` has its `]`, read as fnmatch(3) reads a bracket
  /// expression: a `]` first in the set (after an optional `!` or `^`) is a member, not its end.
  static func bracketsAreClosed(_ component: Substring) -> Bool {
    let bytes = Array(component.utf8)
    var index = 0
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: "\\"): index += 2
      case UInt8(ascii: "["):
        guard let end = bracketEnd(bytes, openingAt: index) else { return false }
        index = end + 1
      default: index += 1
      }
    }
    return true
  }

  /// The index of the `]` that closes the bracket expression opened at `opening`, if any.
  private static func bracketEnd(_ bytes: [UInt8], openingAt opening: Int) -> Int? {
    var index = opening + 1
    if index < bytes.count, bytes[index] == UInt8(ascii: "!") || bytes[index] == UInt8(ascii: "^") { index += 1 }
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1 }
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "]") { return index }
      index += 1
    }
    return nil
  }
}

/// Why a path pattern was refused.
public enum PathPatternError: Error, Equatable, Sendable {
  case empty, containsNUL, unclosedBracket, onlyExclamation

  /// What is wrong, short enough for a diagnostic's headline.
  public var message: String {
    switch self {
    case .empty: "an empty path pattern"
    case .containsNUL: "a path pattern holds a NUL character"
    case .unclosedBracket: "a '[' that is never closed"
    case .onlyExclamation: "a pattern that is only '!'"
    }
  }
}
