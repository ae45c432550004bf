/// One problem found in a manifest, reported compiler-style.
public struct Diagnostic: Hashable, Sendable, Error, CustomStringConvertible {
  public enum Severity: String, Sendable {
    case error
    case warning
  }

  public var location: SourceLocation?
  public var severity: Severity
  public var message: String

  public init(_ severity: Severity = .error, at location: SourceLocation?, _ message: String) {
    self.severity = severity
    self.location = location
    self.message = message
  }

  /// `FILE:LINE:COLUMN: error: MESSAGE`, without the source excerpt.
  public var description: String {
    if let location { return "\(location): \(severity.rawValue): \(message)" }
    return "\(severity.rawValue): \(message)"
  }
}

/// A manifest's problems, in the order a reader meets them: the first ones, up to a limit
/// (``DiagnosticCollector/shownLimit``), and how many more were found.
public struct ManifestErrors: Error, Sendable {
  public var diagnostics: [Diagnostic]
  /// Problems found after the shown ones in reading order; counted, not kept.
  public var omittedCount: Int

  public init(_ diagnostics: [Diagnostic], omittedCount: Int = 0) {
    self.diagnostics = diagnostics
    self.omittedCount = omittedCount
  }
}
