/// Turns a manifest's text into its validated job graph: the one road from a manifest to a
/// ``JobGraph``, for `oprun check` and for a run alike.
public enum ManifestLoader {
  /// The validated graph of the manifest `source` (`source.path` names it in diagnostics),
  /// or every problem of every stage, in reading order: the text is not UTF-8, is not valid
  /// YAML, does not fit the schema, names an unknown job or queue, or has a cycle.
  ///
  /// The graph is built from what could be decoded even when decoding found problems, so
  /// that an unknown dependency or a cycle is reported in the same run as a wrong type.
  public static func graph(from source: SourceText, defaultMaxConcurrent: Int) -> Result<JobGraph, ManifestErrors> {
    var (manifest, diagnostics) = decode(source)
    guard let manifest else { return .failure(ManifestErrors(diagnostics.sortedForReading())) }
    do throws(ManifestErrors) {
      let graph = try JobGraph(manifest: manifest, defaultMaxConcurrent: defaultMaxConcurrent)
      if diagnostics.containsErrors { return .failure(ManifestErrors(diagnostics.sortedForReading())) }
      return .success(graph)
    } catch {
      diagnostics += error.diagnostics
      return .failure(ManifestErrors(diagnostics.sortedForReading()))
    }
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
