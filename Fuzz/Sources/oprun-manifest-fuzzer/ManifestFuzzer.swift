import OprunCore

/// One input: the fuzzer's bytes as a manifest file's content, through the one loading path
/// (text → YAML tree → model → graph), then what a user would see of the result: the
/// rendered diagnostics, or the plan and fingerprints of the graph.
@_cdecl("LLVMFuzzerTestOneInput")
public func loadManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let source = SourceText(path: "fuzz.yaml", bytes: bytes)
  switch ManifestLoader.graph(from: source, defaultMaxConcurrent: 4) {
  case .success(let graph):
    _ = graph.plan()
    _ = graph.fingerprints()
  case .failure(let errors):
    _ = DiagnosticRenderer.render(errors.diagnostics, sources: [source])
  }
  return 0
}
