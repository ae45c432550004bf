import CYAML

/// A YAML syntax error, turned into a diagnostic at its position: for the mistakes people
/// make most (a tab, a misaligned key or list item, a `: ` in an unquoted value), what to
/// change (``YAMLSyntaxHint``); otherwise libyaml's own account of it.
enum YAMLSyntaxError {
  /// A container libyaml had opened when it stopped, by what was written in it last.
  struct Container {
    var kind: YAMLNode.Kind
    /// Written by indentation, not in brackets or braces.
    var isBlock: Bool
    /// A mapping's key written last, or a sequence's last item.
    var last: YAMLNode
    /// A mapping whose last key has no value yet.
    var awaitsValue: Bool
  }

  /// What had been read when libyaml stopped, as much of it as a hint needs.
  struct ReadSoFar {
    /// The innermost container still open.
    var innermost: Container?
    /// The key ``innermost`` is written under: the last key of the nearest mapping outside it,
    /// when that key has no value yet.
    var enclosingKey: YAMLNode?
    /// The block container that ended as ``innermost``'s last value, just before the error.
    var lastClosed: Container?
  }

  static func diagnostic(for parser: yaml_parser_t, in source: SourceText, readSoFar: ReadSoFar) -> Diagnostic {
    let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
    switch parser.error {
    case YAML_MEMORY_ERROR:
      return Diagnostic(at: nil, "out of memory while reading '\(source.path)'")
    case YAML_READER_ERROR:
      // The reader knows only a byte offset, no line and column.
      return Diagnostic(at: source.location(ofByteOffset: parser.problem_offset), "invalid YAML: \(problem)")
    default:
      let context = parser.context.map { String(cString: $0) }
      let mark = parser.problem_mark
      let line = mark.line + 1
      let hint = YAMLSyntaxHint(
        problem: problem, context: context, line: line, column: mark.column + 1, lines: SourceLines(source),
        read: readSoFar)
      if let (column, message) = hint.message() {
        return Diagnostic(at: SourceLocation(file: source.path, line: line, column: column), message)
      }
      var message = "invalid YAML: \(problem)"
      if let context {
        let mark = parser.context_mark
        message += " (\(context) started at line \(mark.line + 1), column \(mark.column + 1))"
      }
      return Diagnostic(at: SourceLocation(file: source.path, line: line, column: mark.column + 1), message)
    }
  }
}
