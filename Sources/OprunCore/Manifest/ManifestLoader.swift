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
  /// `variables` are set on the command line, over the manifest's `vars`; `read` gives the
  /// text of each manifest it includes (SPEC §15), by its path from the current folder;
  /// `readingDotenv` reads the `dotenv` files each manifest names (without it, every one is
  /// missing).
  public static func graph(
    from source: SourceText, variables: [String: String] = [:], defaultMaxConcurrent: Int,
    including read: @escaping (String) -> Result<SourceText, Diagnostic> = Self.noFiles,
    readingDotenv: DotenvResolution.Reader? = nil
  ) -> Result<JobGraph, ManifestErrors> {
    var (decoded, diagnostics) = decode(source, variables: variables)
    guard var decoded else { return .failure(diagnostics.errors()) }
    let readDotenv = readingDotenv ?? { _ in .missing }
    var dotenv = DotenvResolution(manifestPath: source.path, read: readDotenv)
    dotenv.resolve(&decoded, reportingTo: &diagnostics)
    var inclusion = ManifestInclusion(read: read, readingDotenv: readDotenv, diagnostics: diagnostics)
    let manifest = inclusion.joined(decoded, including: [ManifestInclusion.normalized(source.path)])
    diagnostics = inclusion.diagnostics
    let graph = JobGraph.build(manifest, defaultMaxConcurrent: defaultMaxConcurrent, reportingTo: &diagnostics)
    guard var graph else { return .failure(located(diagnostics.errors(), by: inclusion)) }
    graph.manifestWarnings = graph.manifestWarnings.map(inclusion.locating)
    return .success(graph)
  }

  /// What a manifest read without files includes: nothing can be read.
  public static func noFiles(_ path: String) -> Result<SourceText, Diagnostic> {
    .failure(Diagnostic(at: nil, "cannot read '\(path)': no files are read here"))
  }

  /// Each problem with the includes that led to its file, file by file in the order they
  /// were read (each file's in reading order); one found in each inclusion of a file
  /// included twice is said once.
  private static func located(_ errors: ManifestErrors, by inclusion: ManifestInclusion) -> ManifestErrors {
    var seen = Set<Diagnostic>()
    let ranked = errors.diagnostics.enumerated().sorted { a, b in
      let rankA = a.element.location.flatMap { inclusion.rank[$0.file] } ?? 0
      let rankB = b.element.location.flatMap { inclusion.rank[$0.file] } ?? 0
      return (rankA, a.offset) < (rankB, b.offset)
    }
    let diagnostics = ranked.map { inclusion.locating($0.element) }.filter { seen.insert($0).inserted }
    return ManifestErrors(diagnostics, omittedCount: errors.omittedCount)
  }

  /// The manifest as far as it could be decoded, and every problem found on the way. The
  /// manifest is nil when nothing can be said about the jobs (not YAML, not a mapping).
  static func decode(_ source: SourceText, variables: [String: String] = [:]) -> (Manifest?, DiagnosticCollector) {
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
      var decoder = ManifestDecoder(tree: tree, path: source.path, variables: variables)
      let manifest = decoder.decodeManifest()
      return (manifest, decoder.diagnostics)
    }
  }
}
