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
  /// `sources` (by path) and nowhere else: a diagnostic in a file that is not among them, or
  /// on a line the file does not have, is shown without one.
  /// A message quotes the manifest's own text (names, keys, values): what a terminal would act
  /// on in it is shown escaped (``DisplayText``).
  public static func render(_ diagnostics: [Diagnostic], sources: [SourceText]) -> String {
    var lines: [String: SourceLines] = [:]
    for source in sources { lines[source.path] = SourceLines(source) }
    var output = ""
    for diagnostic in diagnostics {
      // A problem with no place in a file (the file itself) is oprun's to say, as `cc: error:`.
      output += (diagnostic.location == nil ? "oprun: " : "") + DisplayText.escaped(diagnostic.description) + "\n"
      guard let location = diagnostic.location else { continue }
      if let line = lines[location.file]?.line(location.line), !line.isEmpty {
        output += excerpt(line, column: location.column)
      }
    }
    return output
  }

  /// The shown problems of a manifest as ``render(_:sources:)`` does, then one line counting
  /// those left out.
  public static func render(_ errors: ManifestErrors, sources: [SourceText]) -> String {
    var output = render(errors.diagnostics, sources: sources)
    if errors.omittedCount > 0 {
      output +=
        "oprun: and \(counted(errors.omittedCount, "more error")) (only the first \(errors.diagnostics.count) are shown)\n"
    }
    return output
  }

  /// The line and a caret under `column` (1-based, in Unicode scalars). A long line is cut
  /// to a window around the column without decoding the rest: a 50 MB line costs one scan.
  /// Tabs are kept so the caret lines up in a terminal; what a terminal cannot show (bytes
  /// that are not UTF-8, control characters) becomes U+FFFD, one for one.
  static func excerpt(_ line: ArraySlice<UInt8>, column: Int) -> String {
    let scalarCount = line.reduce(0) { $0 + (isScalarStart($1) ? 1 : 0) }
    let caret = max(1, min(column, scalarCount + 1))
    let first = max(0, min(caret - 1 - excerptWidth / 2, scalarCount - excerptWidth))
    let window = line[offset(ofScalar: first, in: line)..<offset(ofScalar: first + excerptWidth, in: line)]
    let prefix = first > 0 ? "..." : ""
    var shown = String.UnicodeScalarView()
    var padding = String(repeating: " ", count: prefix.count)
    for (index, scalar) in String(decoding: window, as: UTF8.self).unicodeScalars.enumerated() {
      let isControl = (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
      if index < caret - 1 - first { padding.append(scalar == "\t" ? "\t" : " ") }
      shown.append(isControl ? "\u{FFFD}" : scalar)
    }
    return prefix + String(shown) + "\n" + padding + "^\n"
  }

  private static func isScalarStart(_ byte: UInt8) -> Bool { byte & 0xC0 != 0x80 }

  /// The index in `line` where scalar number `scalar` (0-based) starts, or its end.
  private static func offset(ofScalar scalar: Int, in line: ArraySlice<UInt8>) -> Int {
    var seen = -1
    for index in line.indices where isScalarStart(line[index]) {
      seen += 1
      if seen == scalar { return index }
    }
    return line.endIndex
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

  /// The bytes of line `number` (1-based), without its line break; nil if there is no such line.
  func line(_ number: Int) -> ArraySlice<UInt8>? {
    guard number >= 1, number <= lines.count else { return nil }
    return source.bytes[lines[number - 1]]
  }
}
