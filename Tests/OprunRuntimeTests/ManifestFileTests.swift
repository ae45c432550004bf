import Foundation
import Glibc
import OprunCore
import OprunRuntime
import Testing

/// A manifest on disk: one that cannot be read at all is one diagnostic naming the file and
/// the reason; one that can is read to its end, and its problems come with its lines.
@Suite final class ManifestFileTests {
  private var directories: [URL] = []

  deinit {
    for directory in directories { try? FileManager.default.removeItem(at: directory) }
  }

  private func diagnostics(loading path: String) -> [String] {
    guard case .failure(let errors) = ManifestFile.graph(path: path, defaultMaxConcurrent: 1) else { return [] }
    #expect(errors.sources.isEmpty, "nothing was read")
    return errors.diagnostics.map(\.description)
  }

  private func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-manifest-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    directories.append(url)
    return url
  }

  @Test func aMissingFileIsReportedWithTheSystemsReason() throws {
    let path = try temporaryDirectory().appendingPathComponent("jobs.yaml").path
    #expect(diagnostics(loading: path) == ["error: cannot read '\(path)': No such file or directory"])
  }

  @Test func aDirectoryIsReportedAsOne() throws {
    let path = try temporaryDirectory().path
    #expect(diagnostics(loading: path) == ["error: cannot read '\(path)': it is a directory"])
  }

  @Test(.enabled(if: getuid() != 0, "root can read any file"))
  func anUnreadableFileIsReportedWithTheSystemsReason() throws {
    let url = try temporaryDirectory().appendingPathComponent("jobs.yaml")
    try "jobs: {}\n".write(to: url, atomically: true, encoding: .utf8)
    chmod(url.path, 0)
    #expect(diagnostics(loading: url.path) == ["error: cannot read '\(url.path)': Permission denied"])
  }

  @Test func aFileIsReadToItsEndWhateverItsSize() throws {
    let url = try temporaryDirectory().appendingPathComponent("big.yaml")
    let jobs = (0..<5000).map { "  job\($0):\n    command: echo \($0)\n" }.joined()
    try ("jobs:\n" + jobs).write(to: url, atomically: true, encoding: .utf8)
    guard case .success(let graph) = ManifestFile.graph(path: url.path, defaultMaxConcurrent: 1) else {
      Issue.record("big.yaml was refused")
      return
    }
    #expect(graph.jobs.count == 5000)
    #expect(graph.jobs.last?.commands == ["echo 4999"])
  }

  @Test func aPipeIsReadToItsEnd() throws {
    var descriptors: [Int32] = [0, 0]
    #expect(pipe(&descriptors) == 0)
    let text = "jobs:\n  build:\n    command: make\n"
    _ = text.withCString { write(descriptors[1], $0, strlen($0)) }
    close(descriptors[1])
    defer { close(descriptors[0]) }
    let path = "/proc/self/fd/\(descriptors[0])"
    guard case .success(let graph) = ManifestFile.graph(path: path, defaultMaxConcurrent: 1) else {
      Issue.record("the pipe was refused")
      return
    }
    #expect(graph.jobs.map(\.name) == ["build"])
  }

  @Test func theProblemsOfAFileOnDiskComeWithItsLines() throws {
    let diagnostics = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("OprunCoreTests/Fixtures/diagnostics")
    let path = diagnostics.appendingPathComponent("unknown-names.yaml").path
    guard case .failure(let errors) = ManifestFile.graph(path: path, defaultMaxConcurrent: 1) else {
      Issue.record("unknown-names.yaml was accepted")
      return
    }
    #expect(errors.sources.map(\.path) == [path])
    let rendered = DiagnosticRenderer.render(errors.diagnostics, sources: errors.sources)
    let expected = try String(contentsOf: diagnostics.appendingPathComponent("unknown-names.expected"), encoding: .utf8)
    #expect(rendered.replacingOccurrences(of: diagnostics.path + "/", with: "") == expected)
  }
}
