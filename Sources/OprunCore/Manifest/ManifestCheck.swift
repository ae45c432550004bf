/// Everything `oprun check` does: read, decode and build the job graph, with all problems
/// of every stage in one report.
public enum ManifestCheck {
  /// The validated graph of the manifest `source`, or every problem found, in reading order.
  ///
  /// The graph is built from what could be decoded even when decoding found problems, so
  /// that an unknown dependency or a cycle is reported in the same run as a wrong type.
  public static func load(source: SourceText, defaultMaxConcurrent: Int) -> Result<JobGraph, ManifestErrors> {
    var (manifest, diagnostics) = ManifestLoader.decode(source)
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
}
