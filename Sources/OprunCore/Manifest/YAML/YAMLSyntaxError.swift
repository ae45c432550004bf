import CYAML

/// libyaml's own account of a syntax error, turned into a diagnostic at its position.
enum YAMLSyntaxError {
  static func diagnostic(for parser: yaml_parser_t, in source: SourceText) -> Diagnostic {
    let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
    switch parser.error {
    case YAML_MEMORY_ERROR:
      return Diagnostic(at: nil, "out of memory while reading '\(source.path)'")
    case YAML_READER_ERROR:
      // The reader knows only a byte offset, no line and column.
      return Diagnostic(at: source.location(ofByteOffset: parser.problem_offset), "invalid YAML: \(problem)")
    default:
      var message = "invalid YAML: \(problem)"
      if let context = parser.context {
        let mark = parser.context_mark
        message += " (\(String(cString: context)) started at line \(mark.line + 1), column \(mark.column + 1))"
      }
      let mark = parser.problem_mark
      return Diagnostic(
        at: SourceLocation(file: source.path, line: mark.line + 1, column: mark.column + 1), message)
    }
  }
}
