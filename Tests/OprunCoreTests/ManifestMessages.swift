import OprunCore

/// What loading `yaml` as `jobs.yaml` says, one printed diagnostic each; none when it loads.
func manifestMessages(_ yaml: String) -> [String] {
  guard
    case .failure(let errors) = ManifestLoader.graph(
      from: SourceText(path: "jobs.yaml", text: yaml), defaultMaxConcurrent: 1)
  else { return [] }
  return errors.diagnostics.map(\.description)
}
