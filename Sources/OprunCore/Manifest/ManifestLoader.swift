/// Turns a manifest's text into a ``Manifest``, reporting every problem at once.
public enum ManifestLoader {
  /// Parses and decodes a manifest; `source.path` names it in diagnostics.
  ///
  /// Fails with every diagnostic found, in reading order: the text is not UTF-8, is not
  /// valid YAML, or does not fit the manifest's schema. Names are not resolved here:
  /// unknown dependencies and cycles are found by `JobGraph(manifest:defaultMaxConcurrent:)`.
  public static func load(source: SourceText) -> Result<Manifest, ManifestErrors> {
    let (manifest, diagnostics) = decode(source)
    guard let manifest, !diagnostics.containsErrors else {
      return .failure(ManifestErrors(diagnostics.sortedForReading()))
    }
    return .success(manifest)
  }

  /// The manifest as far as it could be decoded, and every problem found on the way. The
  /// manifest is nil when nothing can be said about the jobs (not YAML, not a mapping).
  static func decode(_ source: SourceText) -> (Manifest?, [Diagnostic]) {
    if let problem = source.encodingProblem() { return (nil, [problem]) }
    switch YAMLTreeBuilder.build(source) {
    case .failure(let problem):
      return (nil, [problem])
    case .success(let tree):
      var decoder = ManifestDecoder(tree: tree, path: source.path)
      let manifest = decoder.decodeManifest()
      return (manifest, decoder.diagnostics)
    }
  }
}

extension [Diagnostic] {
  var containsErrors: Bool { contains { $0.severity == .error } }

  /// Problems without a place first, then by line and column; ties keep the order found.
  func sortedForReading() -> [Diagnostic] {
    enumerated().sorted { a, b in
      let left = (a.element.location?.line ?? 0, a.element.location?.column ?? 0, a.offset)
      let right = (b.element.location?.line ?? 0, b.element.location?.column ?? 0, b.offset)
      return left < right
    }.map(\.element)
  }
}
