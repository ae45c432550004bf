import OprunCore

/// ANSI colours for the human view; every method returns its text unchanged when
/// colour is off.
struct TerminalStyle {
  var isEnabled: Bool

  enum Colour: String {
    case green = "32"
    case red = "31"
    case yellow = "33"
    case dim = "2"
    case bold = "1"
  }

  func paint(_ text: String, _ colour: Colour?) -> String {
    guard isEnabled, let colour, !text.isEmpty else { return text }
    return "\u{1B}[" + colour.rawValue + "m" + text + "\u{1B}[0m"
  }

  /// The colour that marks an outcome: green for success, red for failure, yellow for
  /// jobs that did not run to the end.
  static func colour(of outcome: Outcome) -> Colour {
    switch outcome {
    case .succeeded: .green
    case .failed, .timedOut: .red
    case .cancelled, .skipped: .yellow
    }
  }
}
