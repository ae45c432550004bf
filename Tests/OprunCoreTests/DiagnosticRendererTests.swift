import OprunCore
import Testing

/// The excerpt under a diagnostic: the line as written, a caret under the column.
@Suite struct DiagnosticRendererTests {
  private func render(_ text: String, line: Int, column: Int) -> String {
    let source = SourceText(path: "r.yaml", text: text)
    let diagnostic = Diagnostic(at: ManifestLocation(file: "r.yaml", line: line, column: column), "m")
    return DiagnosticRenderer.render([diagnostic], sources: [source])
  }

  @Test func theCaretSitsUnderTheColumnAndTabsAreKept() {
    #expect(render("a\n\tkey: value\n", line: 2, column: 7) == "r.yaml:2:7: error: m\n\tkey: value\n\t     ^\n")
  }

  @Test func aWideCharacterCountsAsOneColumn() {
    #expect(render("thé: x\n", line: 1, column: 6) == "r.yaml:1:6: error: m\nthé: x\n     ^\n")
  }

  @Test func aLongLineIsShownAsAWindowAroundTheColumn() {
    let line = String(repeating: "a", count: 500) + "X" + String(repeating: "b", count: 500)
    let rendered = render(line, line: 1, column: 501).split(separator: "\n", omittingEmptySubsequences: false)
    #expect(rendered[1].hasPrefix("...a"))
    #expect(rendered[1].count == 123)
    let caret = rendered[2].firstIndex(of: "^").map { rendered[2].distance(from: rendered[2].startIndex, to: $0) }
    let mark = rendered[1].firstIndex(of: "X").map { rendered[1].distance(from: rendered[1].startIndex, to: $0) }
    #expect(caret == mark)
  }

  @Test func controlCharactersAreShownAsReplacementCharacters() {
    #expect(render("a\u{1B}[31mb\n", line: 1, column: 2) == "r.yaml:1:2: error: m\na\u{FFFD}[31mb\n ^\n")
  }

  @Test func aDiagnosticWithoutAPlaceHasNoExcerpt() {
    #expect(
      DiagnosticRenderer.render([Diagnostic(at: nil, "cannot read 'x'")], sources: [])
        == "oprun: error: cannot read 'x'\n")
  }

  /// The renderer reads no file: this source file exists, but it is not among the sources.
  @Test func aDiagnosticInAFileNotAmongTheSourcesHasNoExcerpt() {
    let diagnostic = Diagnostic(at: ManifestLocation(file: #filePath, line: 1, column: 1), "m")
    let source = SourceText(path: "r.yaml", text: "a: b\n")
    #expect(DiagnosticRenderer.render([diagnostic], sources: [source]) == "\(#filePath):1:1: error: m\n")
  }

  @Test func aLineBeyondTheFileHasNoExcerpt() {
    #expect(render("a: b\n", line: 9, column: 1) == "r.yaml:9:1: error: m\n")
  }
}
