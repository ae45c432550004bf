import OprunCore
import PropertyBased
import Testing

/// Whatever the input, checking ends with a result or diagnostics: never a crash or a hang.
@Suite struct ManifestRobustnessTests {
  private func check(_ bytes: [UInt8]) -> [Diagnostic] {
    let source = SourceText(path: "input.yaml", bytes: bytes)
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 2) else { return [] }
    #expect(errors.diagnostics.contains { $0.severity == .error }, "a refused manifest says why")
    _ = DiagnosticRenderer.render(errors.diagnostics, sources: [source])
    return errors.diagnostics
  }

  private func check(_ text: String) -> [String] {
    check(Array(text.utf8)).map(\.description)
  }

  @Test func nestingUpToTheLimitIsParsedAndDeeperIsADiagnostic() {
    let allowed = "jobs: " + String(repeating: "[", count: 999) + String(repeating: "]", count: 999)
    #expect(check(allowed) == ["input.yaml:1:7: error: expected a mapping of job names to jobs, found a list"])
    let tooDeep = "jobs: " + String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
    #expect(check(tooDeep) == ["input.yaml:1:1006: error: nesting deeper than 1000 levels"])
  }

  @Test func aMillionOpeningBracketsEndWithTheNestingDiagnostic() {
    let diagnostics = check(String(repeating: "[", count: 1_000_000))
    #expect(diagnostics == ["input.yaml:1:1001: error: nesting deeper than 1000 levels"])
  }

  @Test func deeplyIndentedBlockMappingsEndWithTheNestingDiagnostic() {
    let text = (0..<1500).map { String(repeating: " ", count: $0) + "k\($0):\n" }.joined()
    #expect(check(text).first?.hasSuffix("error: nesting deeper than 1000 levels") == true)
  }

  @Test func aliasesThatWouldExpandExponentiallyAreRefused() {
    var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x]"]
    for level in 1...20 {
      lines.append(
        "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 16).joined(separator: ", ") + "]")
    }
    let diagnostics = check(lines.joined(separator: "\n"))
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.contains("error: aliases expand the document to more than 1000000 nodes") == true)
  }

  @Test func aliasesSharedByManyJobsAreAccepted() throws {
    let jobs = (0..<2000).map { "  job\($0): *body" }.joined(separator: "\n")
    let text = "x: &body {command: make, env: {A: '1', B: '2', C: '3'}}\njobs:\n" + jobs
    #expect(
      check(text) == [
        "input.yaml:1:1: error: unknown key 'x' (expected 'name', 'max-concurrent', 'on-failure', 'env', 'cwd', 'defaults', 'queues', 'jobs', 'slurm', 'budget', 'dotenv', 'secrets', 'include', 'vars' or 'cache')"
      ])
  }

  @Test func randomBytesAlwaysEndInDiagnosticsWithAPlace() async {
    await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...600)) { bytes in
      for diagnostic in check(bytes) {
        if let location = diagnostic.location {
          #expect(location.line >= 1 && location.column >= 1)
        }
      }
    }
  }

  @Test func mangledManifestsAlwaysEndInAResultOrDiagnostics() async throws {
    let valid = try ManifestFixtures.source("valid/complete.yaml").bytes
    let alphabet = Array("{}[]:,-&*!|>'\"#%@` \n\tab?".utf8)
    let edits = zip(Gen.int(in: 0..<valid.count), Gen.element(of: alphabet), Gen.int(in: 0...2)).array(of: 1...8)
    await propertyCheck(count: 300, input: edits) { edits in
      var bytes = valid
      for (position, byte, kind) in edits {
        let index = min(position, bytes.count - 1)
        switch kind {
        case 0: bytes[index] = byte!
        case 1: bytes.insert(byte!, at: index)
        default: bytes.remove(at: index)
        }
      }
      _ = check(bytes)
    }
  }
}
