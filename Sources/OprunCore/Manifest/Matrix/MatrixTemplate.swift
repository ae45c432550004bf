/// Text holding `${{ matrix.AXIS }}` (SPEC §11) and `${{ vars.NAME }}` (SPEC §15)
/// substitutions, split into what is kept as written, what each instance fills in, and the
/// variables named. These are the only forms: blanks inside the braces are allowed, as GitHub
/// Actions allows them, and nothing else is.
struct MatrixTemplate: Sendable {
  enum Piece: Sendable, Equatable {
    case text(Substring)
    case axis(Substring)
    /// `${{ vars.NAME }}`: the manifest's or the command line's variable `NAME`.
    case variable(Substring)
    /// A `${{ ... }}` of another form, or a `${{` never closed: the text as written.
    case unsupported(Substring)
  }

  let pieces: [Piece]

  private static let opening = Array("${{".utf8)

  /// Whether `text` holds a `${{` at all: the fast test every scalar of a manifest takes.
  static func mayHoldSubstitutions(_ text: String) -> Bool {
    var utf8 = text.utf8.makeIterator()
    var matched = 0
    while let byte = utf8.next() {
      if byte == opening[matched] {
        matched += 1
        if matched == opening.count { return true }
      } else {
        matched = byte == opening[0] ? 1 : 0
      }
    }
    return false
  }

  init(_ text: String) {
    var pieces: [Piece] = []
    var rest = Substring(text)
    while let start = rest.firstRange(of: "${{") {
      if start.lowerBound > rest.startIndex { pieces.append(.text(rest[..<start.lowerBound])) }
      guard let end = rest[start.upperBound...].firstRange(of: "}}") else {
        pieces.append(.unsupported(rest[start.lowerBound...]))
        rest = rest[rest.endIndex...]
        break
      }
      let inside = rest[start.upperBound..<end.lowerBound]
      pieces.append(Self.piece(in: inside) ?? .unsupported(rest[start.lowerBound..<end.upperBound]))
      rest = rest[end.upperBound...]
    }
    if !rest.isEmpty { pieces.append(.text(rest)) }
    self.pieces = pieces
  }

  /// The axis of ` matrix.AXIS `, the variable of ` vars.NAME `, or nil for any other expression.
  private static func piece(in expression: Substring) -> Piece? {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = expression.firstIndex(where: { !isBlank($0) }),
      let last = expression.lastIndex(where: { !isBlank($0) })
    else { return nil }
    let body = expression[first...last]
    for (prefix, piece) in [("matrix.", Piece.axis), ("vars.", Piece.variable)] where body.hasPrefix(prefix) {
      let name = body.dropFirst(prefix.count)
      return isAxisName(name) ? piece(name) : nil
    }
    return nil
  }

  /// The variables named, in order, with repeats.
  var variables: [Substring] {
    pieces.compactMap { if case .variable(let name) = $0 { name } else { nil } }
  }

  /// The text with each variable replaced by its value in `values`; the rest (axes, forms not
  /// supported, variables `values` lacks) as written.
  func replacingVariables(_ values: [String: String]) -> String {
    var text = ""
    for piece in pieces {
      switch piece {
      case .text(let kept), .unsupported(let kept): text += kept
      case .axis(let name): text += "${{ matrix.\(name) }}"
      case .variable(let name): text += values[String(name)] ?? "${{ vars.\(name) }}"
      }
    }
    return text
  }

  /// The axes named, in order, with repeats.
  var axes: [Substring] {
    pieces.compactMap { if case .axis(let name) = $0 { name } else { nil } }
  }

  /// The forms that are neither `${{ matrix.AXIS }}` nor `${{ vars.NAME }}`.
  var unsupported: [Substring] {
    pieces.compactMap { if case .unsupported(let text) = $0 { text } else { nil } }
  }

  /// An axis or variable name: `[A-Za-z_][A-Za-z0-9_-]*`.
  static func isAxisName(_ name: some StringProtocol) -> Bool {
    guard let first = name.utf8.first, isLetter(first) || first == UInt8(ascii: "_") else { return false }
    return name.utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
  }
}
