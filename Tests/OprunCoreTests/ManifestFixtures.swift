import Foundation
import OprunCore

/// The files under `Fixtures/`, found next to this source file so that golden files can be
/// rewritten in place (`OPRUN_UPDATE_GOLDEN=1 swift test`).
enum ManifestFixtures {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

  static func url(_ relativePath: String) -> URL {
    directory.appendingPathComponent(relativePath)
  }

  /// The fixture as a manifest named by its file name alone, as a user in its folder would name it.
  static func source(_ relativePath: String) throws -> SourceText {
    let url = url(relativePath)
    return SourceText(path: url.lastPathComponent, bytes: Array(try Data(contentsOf: url)))
  }

  /// What `source` decodes to, by the one loading path (so its names must resolve too).
  static func decoded(_ source: SourceText) -> Result<Manifest, ManifestErrors> {
    ManifestLoader.graph(from: source, defaultMaxConcurrent: 1).map(\.manifest)
  }

  /// The names (without `.yaml`) of the manifests in a fixture folder.
  static func manifests(in folder: String) -> [String] {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: url(folder).path)) ?? []
    return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
  }

  static var updatesGoldenFiles: Bool { ProcessInfo.processInfo.environment["OPRUN_UPDATE_GOLDEN"] == "1" }
}

/// OprunCore's source location; Swift Testing has a type of the same name.
typealias ManifestLocation = OprunCore.SourceLocation
