/// One entry of a job's `inputs` or `outputs` (SPEC §10): a path or glob pattern, relative
/// to the job's working directory unless absolute; with a leading `!`, an exclusion.
public struct PathPattern: Hashable, Sendable {
  /// As written, with any leading `!`.
  public var text: String
  /// It began with `!`: it removes what it matches from what the patterns before it matched.
  public var isExclusion: Bool
  /// Without the `!`.
  public var body: String

  public static func parse(_ text: String) -> Result<PathPattern, PathPatternError> {
    if text.isEmpty { return .failure(.empty) }
    if text.utf8.contains(0) { return .failure(.containsNUL) }
    let isExclusion = text.hasPrefix("!")
    let body = isExclusion ? String(text.dropFirst()) : text
    if body.isEmpty { return .failure(.onlyExclamation) }
    var open = false
    for byte in body.utf8 {
      if byte == UInt8(ascii: "[") { open = true } else if byte == UInt8(ascii: "]") { open = false }
    }
    if open { return .failure(.unclosedBracket) }
    return .success(PathPattern(text: text, isExclusion: isExclusion, body: body))
  }
}

public enum PathPatternError: Error, Equatable, Sendable {
  case empty, containsNUL, unclosedBracket, onlyExclamation

  public var message: String {
    switch self {
    case .empty: "an empty path pattern"
    case .containsNUL: "a path pattern holds a NUL character"
    case .unclosedBracket: "a '[' that is never closed"
    case .onlyExclamation: "a pattern that is only '!'"
    }
  }
}
