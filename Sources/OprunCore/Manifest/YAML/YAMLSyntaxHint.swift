/// What to change, for the YAML syntax errors people make most, told from libyaml's problem,
/// its context, where it stopped, the lines there and what had been read
/// (``YAMLSyntaxError/ReadSoFar``):
///
/// - a tab where YAML wants spaces: at the tab, `tabs cannot indent YAML; use spaces`;
/// - a key or list item that lines up with no other: the column of the keys or items around
///   it that it may belong with (libyaml says "did not find expected key", or, for a key
///   deeper than the one before it, "mapping values are not allowed");
/// - a `: ` in a value that is not quoted: the value, quoted.
///
/// Anything else is left to libyaml's words.
struct YAMLSyntaxHint {
  let problem: String
  let context: String?
  /// Where libyaml stopped, 1-based; the column in Unicode scalars.
  let line: Int
  let column: Int
  let lines: SourceLines
  let read: YAMLSyntaxError.ReadSoFar

  /// The column to point at and what to say there; nil when no hint fits.
  func message() -> (column: Int, text: String)? {
    tab() ?? misalignedLine() ?? colonInValue()
  }

  private func tab() -> (column: Int, text: String)? {
    let text = scalars(line)
    let isAtTab = column <= text.count && text[column - 1] == "\t"
    guard isAtTab || problem.contains("tab character") else { return nil }
    let firstTab = text.prefix { $0 == " " || $0 == "\t" }.firstIndex(of: "\t").map { $0 + 1 }
    return (isAtTab ? column : firstTab ?? column, "tabs cannot indent YAML; use spaces")
  }

  private func misalignedLine() -> (column: Int, text: String)? {
    switch (problem, context) {
    case ("did not find expected key", "while parsing a block mapping"),
      ("did not find expected '-' indicator", "while parsing a block collection"):
      // Less indented than the keys (or items) before it, more than those around them.
      return misaligned(at: column, around: read.innermost, within: read.lastClosed)
    case ("mapping values are not allowed in this context", _):
      // More indented than the key before it, whose value is a plain scalar: libyaml reads
      // the line as more of that value, until its `: `.
      guard let innermost = read.innermost, innermost.kind == .mapping, innermost.isBlock,
        Int(innermost.last.line) < line,
        let start = scalars(line).firstIndex(where: { $0 != " " }).map({ $0 + 1 }), start < column
      else { return nil }
      return misaligned(at: start, around: innermost, within: nil)
    default:
      return nil
    }
  }

  /// The line's key or list item at `start` belongs with the keys (items) of `outer`, which
  /// are less indented, or of `inner`, which ended just before and are more indented.
  private func misaligned(
    at start: Int, around outer: YAMLSyntaxError.Container?, within inner: YAMLSyntaxError.Container?
  ) -> (column: Int, text: String)? {
    let text = scalars(line)
    guard start <= text.count else { return nil }
    let isItem = text[start - 1] == "-" && (start == text.count || Self.isBlank(text[start]))
    let what: String
    if isItem {
      what = "list item at column \(start) lines up with no other item"
    } else if let key = key(in: text, at: start) {
      what = "key '\(key)' at column \(start) lines up with no other key"
    } else {
      return nil
    }
    let kind: YAMLNode.Kind = isItem ? .sequence : .mapping
    var places: [String] = []
    if let inner, inner.kind == kind, let place = place(of: inner), place.column > start {
      places.append(place.text)
    }
    if let outer, outer.isBlock, outer.kind == kind, let place = place(of: outer), place.column < start {
      places.append(place.text)
    }
    guard !places.isEmpty else { return nil }
    return (start, what + "; indent it " + places.joined(separator: ", or "))
  }

  /// `to column 5 like 'command' on line 3`: where the keys (items) of `container` start.
  private func place(of container: YAMLSyntaxError.Container) -> (column: Int, text: String)? {
    let last = container.last
    guard container.kind == .sequence else {
      guard last.kind == .scalar else { return nil }
      let column = Int(last.column)
      return (column, "to column \(column) like '\(last.text)' on line \(last.line)")
    }
    // An item starts after its `-`: the dash is what lines up.
    let text = scalars(Int(last.line))
    var index = min(Int(last.column) - 2, text.count - 1)
    while index >= 0, Self.isBlank(text[index]) { index -= 1 }
    guard index >= 0, text[index] == "-" else { return nil }
    return (index + 1, "to column \(index + 1) like the item on line \(last.line)")
  }

  /// A key written on `text` at `start`: what comes before the first `:` that ends one.
  private func key(in text: [Unicode.Scalar], at start: Int) -> String? {
    guard let colon = indicatorColon(in: text, from: start - 1) else { return nil }
    return Self.string(text[(start - 1)..<colon]).trimmingTrailingBlanks
  }

  /// A value written on the same line as its key, with a `: ` in it, which a plain scalar
  /// cannot hold: the value quoted, as it should be written.
  private func colonInValue() -> (column: Int, text: String)? {
    guard problem == "mapping values are not allowed in this context", let innermost = read.innermost,
      innermost.kind == .mapping, innermost.isBlock, Int(innermost.last.line) == line
    else { return nil }
    let key = innermost.last
    let text = scalars(line)
    let keyStart = Int(key.column) - 1
    guard key.kind == .scalar, key.isPlain, let keyColon = indicatorColon(in: text, from: keyStart) else { return nil }
    let written: String
    let isCommand: Bool
    if key.text.unicodeScalars.contains(where: Self.isBlank) {
      // `- echo note: done: twice`: the key is the start of what was meant as one string.
      let dash = text[..<keyStart].lastIndex { !Self.isBlank($0) }.map { text[$0] == "-" } ?? false
      written = (dash ? "- " : "") + Self.quoted(valueText(text, from: keyStart))
      isCommand = read.enclosingKey.map { Self.commandKeys.contains($0.text) } ?? false
    } else {
      var valueStart = keyColon + 1
      while valueStart < text.count, Self.isBlank(text[valueStart]) { valueStart += 1 }
      written = key.text + ": " + Self.quoted(valueText(text, from: valueStart))
      isCommand = key.text == JobKey.command.word || key.text == JobKey.completion.word
    }
    let what = isCommand ? "the command" : "the value"
    return (column, "an unquoted value cannot hold ': '; quote \(what): \(written)")
  }

  /// The keys whose values are shell commands, under which a hint speaks of "the command".
  private static let commandKeys: Set<String> = [JobKey.command.word, JobKey.commands.word, JobKey.completion.word]

  /// The rest of the line from `start`, up to a comment, without trailing blanks.
  private func valueText(_ text: [Unicode.Scalar], from start: Int) -> String {
    var end = start
    while end < text.count, !(text[end] == "#" && end > start && Self.isBlank(text[end - 1])) { end += 1 }
    return Self.string(text[min(start, end)..<end]).trimmingTrailingBlanks
  }

  /// The index of the first `:` at or after `start` that a blank or the line's end follows.
  private func indicatorColon(in text: [Unicode.Scalar], from start: Int) -> Int? {
    guard start >= 0, start < text.count else { return nil }
    return text[start...].indices.first { text[$0] == ":" && ($0 + 1 == text.count || Self.isBlank(text[$0 + 1])) }
  }

  /// `"text"`, or `'text'` when double quotes would need escapes.
  static func quoted(_ text: String) -> String {
    guard text.contains("\"") || text.contains("\\") else { return "\"" + text + "\"" }
    return "'" + String(text.flatMap { $0 == "'" ? ["'", "'"] : [$0] }) + "'"
  }

  private func scalars(_ number: Int) -> [Unicode.Scalar] {
    lines.line(number).map { Array(String(decoding: $0, as: UTF8.self).unicodeScalars) } ?? []
  }

  private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
    var text = String.UnicodeScalarView()
    text.append(contentsOf: scalars)
    return String(text)
  }

  private static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }
}

extension String {
  fileprivate var trimmingTrailingBlanks: String {
    var scalars = Substring(self).unicodeScalars
    while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
    return String(scalars)
  }
}
