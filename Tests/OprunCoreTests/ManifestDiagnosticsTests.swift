import Foundation
import OprunCore
import Testing

/// Every diagnostic a user can meet, as the exact text `oprun check` prints: each
/// `Fixtures/diagnostics/NAME.yaml` is checked and compared with `NAME.expected`.
@Suite struct ManifestDiagnosticsTests {
  @Test(arguments: ManifestFixtures.manifests(in: "diagnostics"))
  func diagnosticsMatchTheGoldenFile(name: String) throws {
    let source = try ManifestFixtures.source("diagnostics/\(name).yaml")
    let result = ManifestLoader.graph(from: source, defaultMaxConcurrent: 4)
    guard case .failure(let errors) = result else {
      Issue.record("\(name).yaml was accepted")
      return
    }
    let rendered = DiagnosticRenderer.render(errors, sources: [source])
    let golden = ManifestFixtures.url("diagnostics/\(name).expected")
    if ManifestFixtures.updatesGoldenFiles { try rendered.write(to: golden, atomically: true, encoding: .utf8) }
    let expected = try String(contentsOf: golden, encoding: .utf8)
    #expect(rendered == expected)
  }

  @Test func everyDiagnosticsFixtureHasAGoldenFile() {
    let names = ManifestFixtures.manifests(in: "diagnostics")
    #expect(names.count >= 30)
    for name in names {
      let golden = ManifestFixtures.url("diagnostics/\(name).expected")
      #expect(FileManager.default.fileExists(atPath: golden.path), "\(name).expected")
    }
  }
}
