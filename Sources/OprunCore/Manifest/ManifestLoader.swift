/// Turns a manifest's text into its validated job graph: the one road from a manifest to a
/// ``JobGraph``, for `oprun check` and for a run alike.
public enum ManifestLoader {
  /// The validated graph of the manifest `source` (`source.path` names it in diagnostics),
  /// or the problems of every stage, in reading order: the text is not UTF-8, is not valid
  /// YAML, does not fit the schema, names an unknown job or queue, or has a cycle. Only the
  /// first ``DiagnosticCollector/shownLimit`` problems are kept; the rest are counted.
  ///
  /// The graph is built from what could be decoded even when decoding found problems, so
  /// that an unknown dependency or a cycle is reported in the same run as a wrong type.
  ///
  /// `readingDotenv` reads the `dotenv` files the manifest names (SPEC §15); without it,
  /// every one is missing.
  public static func graph(
    from source: SourceText, defaultMaxConcurrent: Int, readingDotenv: DotenvResolution.Reader? = nil
  ) -> Result<JobGraph, ManifestErrors> {
    var (decoded, diagnostics) = decode(source)
    guard var manifest = decoded else { return .failure(diagnostics.errors()) }
    var dotenv = DotenvResolution(manifestPath: source.path, read: readingDotenv ?? { _ in .missing })
    dotenv.resolve(&manifest, reportingTo: &diagnostics)
    let graph = JobGraph.build(manifest, defaultMaxConcurrent: defaultMaxConcurrent, reportingTo: &diagnostics)
    guard let graph else { return .failure(diagnostics.errors()) }
    return .success(graph)
  }

  /// The manifest as far as it could be decoded, and every problem found on the way. The
  /// manifest is nil when nothing can be said about the jobs (not YAML, not a mapping).
  static func decode(_ source: SourceText) -> (Manifest?, DiagnosticCollector) {
    var problems = DiagnosticCollector()
    if let problem = source.encodingProblem() {
      problems.append(problem)
      return (nil, problems)
    }
    switch YAMLTreeBuilder.build(source) {
    case .failure(let problem):
      problems.append(problem)
      return (nil, problems)
    case .success(let tree):
      var decoder = ManifestDecoder(tree: tree, path: source.path)
      let manifest = decoder.decodeManifest()
      return (manifest, decoder.diagnostics)
    }
  }
}
