import Testing

@testable import OprunCore

@Suite struct DotenvReaderTests {
  /// What one file's text sets, as `NAME=value` lines in order, or its first problem.
  private func read(_ text: String) -> [String] {
    let (entries, problems) = DotenvReader.read(SourceText(path: ".env", text: text))
    if let problem = problems.first { return ["\(problem)"] }
    return entries.map { "\($0.name)=\($0.value)" }
  }

  @Test(arguments: [
    ("A=1", ["A=1"]),
    ("A=1\nB=2\n", ["A=1", "B=2"]),
    ("# a comment\n\n  # indented comment\nA=1", ["A=1"]),
    ("export A=1", ["A=1"]),
    ("export  A = 1 ", ["A=1"]),
    ("exported=1", ["exported=1"]),
    ("A=", ["A="]),
    ("A=  spaced value  ", ["A=spaced value"]),
    ("A=b # note", ["A=b"]),
    ("A=b#c", ["A=b#c"]),
    ("A='single # kept $HOME \\n'", ["A=single # kept $HOME \\n"]),
    ("A=\"line\\none\"", ["A=line\none"]),
    ("A=\"tab\\tquote\\\"back\\\\dollar\\$other\\q\"", ["A=tab\tquote\"back\\dollar$other\\q"]),
    ("A=\"two\nlines\"", ["A=two\nlines"]),
    ("A=\"x\" # note", ["A=x"]),
    ("A=${HOME}/x", ["A=${HOME}/x"]),
    ("A=1\nA=2", ["A=2"]),
    ("A=1\nB=2\nA=3", ["A=3", "B=2"]),
    ("A=1\r\nB=2\r\n", ["A=1", "B=2"]),
    ("\u{FEFF}A=1", ["A=1"]),
    ("my.var-name=1", ["my.var-name=1"]),
    ("A=a=b", ["A=a=b"]),
    ("NOVALUE", [".env:1:8: error: expected '=' after 'NOVALUE': each line is NAME=value"]),
    ("A=1\n1A=2", [".env:2:1: error: expected a variable name, a letter or '_', then letters, digits, '_', '.' or '-'"]),
    ("=1", [".env:1:1: error: expected a variable name before '='"]),
    ("A=1\nB=\"open", [".env:2:3: error: unclosed double quote: the value runs to the end of the file"]),
    ("A='x' y", [".env:1:7: error: unexpected text after the closing quote; put a '#' before a comment"]),
  ])
  func aLineMeans(_ text: String, _ expected: [String]) {
    #expect(read(text) == expected)
  }

  @Test func everyMalformedLineIsReportedAndTheOthersStillCount() {
    let (entries, problems) = DotenvReader.read(SourceText(path: "x/.env", text: "A=1\nbad\nB=2\nworse\n"))
    #expect(entries.map(\.name) == ["A", "B"])
    #expect(problems.map { "\($0.location!)" } == ["x/.env:2:4", "x/.env:4:6"])
  }

  @Test func aFileThatIsNotUTF8IsAProblem() {
    let (_, problems) = DotenvReader.read(SourceText(path: ".env", bytes: Array("A=".utf8) + [0xFF]))
    #expect(problems.count == 1)
  }
}
