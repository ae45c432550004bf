/// Renders diagnostics the way a compiler does: the message, the source line, a caret.
///
/// ```
/// jobs.yaml:14:19: error: unknown dependency 'biuld' of job 'test' (did you mean 'build'?)
///     dependencies: [biuld]
///                    ^
/// ```
public enum DiagnosticRenderer {
  /// Excerpts longer than this many characters show a window around the column.
  static let excerptWidth = 120

  /// The text of every diagnostic, each line ending in a newline. Excerpts come from
  /// `sources` (by path), else from reading the file again; a line that cannot be shown
  /// (file gone, not UTF-8) is left out.
  public static func render(_ diagnostics: [Diagnostic], sources: [SourceText] = []) -> String {
    var lines: [String: SourceLines] = [:]
    for source in sources { lines[source.path] = SourceLines(source) }
    var output = ""
    for diagnostic in diagnostics {
      output += diagnostic.description + "\n"
      guard let location = diagnostic.location else { continue }
      if lines[location.file] == nil {
        lines[location.file] = (try? SourceText.read(path: location.file).get()).map(SourceLines.init)
      }
      if let text = lines[location.file]?.line(location.line), !text.isEmpty {
        output += excerpt(text, column: location.column)
      }
    }
    return output
  }

  /// The line and a caret under `column` (1-based, in Unicode scalars); tabs are kept so
  /// the caret lines up in a terminal.
  static func excerpt(_ line: String, column: Int) -> String {
    var scalars = Array(line.unicodeScalars)
    var caretColumn = max(1, min(column, scalars.count + 1))
    var prefix = ""
    if scalars.count > excerptWidth {
      let start = max(0, min(caretColumn - 1 - excerptWidth / 2, scalars.count - excerptWidth))
      scalars = Array(scalars[start..<min(scalars.count, start + excerptWidth)])
      caretColumn -= start
      if start > 0 { prefix = "..." }
    }
    var shown = String.UnicodeScalarView()
    shown.append(contentsOf: scalars)
    let padding = scalars.prefix(caretColumn - 1).map { $0 == "\t" ? "\t" : " " }.joined()
    return prefix + String(shown) + "\n" + String(repeating: " ", count: prefix.count) + padding + "^\n"
  }
}

/// The lines of a source file, split once.
struct SourceLines {
  private let source: SourceText
  /// Byte ranges of every line, without its line break.
  private var lines: [Range<Int>] = []

  init(_ source: SourceText) {
    self.source = source
    let bytes = source.bytes
    var start = 0
    var index = 0
    while index < bytes.count {
      let length = LineBreak.length(in: bytes, at: index)
      if length > 0 {
        lines.append(start..<index)
        index += length
        start = index
      } else {
        index += 1
      }
    }
    lines.append(start..<bytes.count)
  }

  /// Line `number` (1-based), or nil if it does not exist. What a terminal cannot show
  /// (bytes that are not UTF-8, control characters) becomes U+FFFD, one for one, so the
  /// caret still lines up.
  func line(_ number: Int) -> String? {
    guard number >= 1, number <= lines.count else { return nil }
    let text = String(decoding: source.bytes[lines[number - 1]], as: UTF8.self)
    var shown = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      let isControl = (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
      shown.append(isControl ? "\u{FFFD}" : scalar)
    }
    return String(shown)
  }
}
