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

/// Every problem of a manifest, in the order a reader meets them.
public struct ManifestErrors: Error, Sendable {
  public var diagnostics: [Diagnostic]

  public init(_ diagnostics: [Diagnostic]) {
    self.diagnostics = diagnostics
  }
}
