/// Text holding `${{ matrix.AXIS }}` substitutions (SPEC §11), split into what is kept as
/// written and what each instance fills in. `${{ matrix.AXIS }}` is the only form: blanks
/// inside the braces are allowed, as GitHub Actions allows them, and nothing else is.
struct MatrixTemplate: Sendable {
  enum Piece: Sendable, Equatable {
    case text(Substring)
    case axis(Substring)
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
      pieces.append(Self.axis(in: inside).map(Piece.axis) ?? .unsupported(rest[start.lowerBound..<end.upperBound]))
      rest = rest[end.upperBound...]
    }
    if !rest.isEmpty { pieces.append(.text(rest)) }
    self.pieces = pieces
  }

  /// `AXIS` of ` matrix.AXIS `, or nil for any other expression.
  private static func axis(in expression: Substring) -> Substring? {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = expression.firstIndex(where: { !isBlank($0) }),
      let last = expression.lastIndex(where: { !isBlank($0) })
    else { return nil }
    let body = expression[first...last]
    guard body.hasPrefix("matrix.") else { return nil }
    let name = body.dropFirst("matrix.".count)
    return isAxisName(name) ? name : nil
  }

  /// The axes named, in order, with repeats.
  var axes: [Substring] {
    pieces.compactMap { if case .axis(let name) = $0 { name } else { nil } }
  }

  /// The forms that are not `${{ matrix.AXIS }}`.
  var unsupported: [Substring] {
    pieces.compactMap { if case .unsupported(let text) = $0 { text } else { nil } }
  }

  /// An axis name: `[A-Za-z_][A-Za-z0-9_-]*`.
  static func isAxisName(_ name: some StringProtocol) -> Bool {
    guard let first = name.utf8.first, isLetter(first) || first == UInt8(ascii: "_") else { return false }
    return name.utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
  }
}
