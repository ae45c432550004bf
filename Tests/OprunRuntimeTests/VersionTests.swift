import Foundation
import OprunCore
import Testing

/// The version `--version` prints is a semantic version, and the one the man page names.
@Test func versionIsSemanticAndTheManPagesOwn() throws {
  #expect(oprunVersion.wholeMatch(of: /(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?/) != nil)
  let manPage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("man/oprun.1")
  let header = try String(contentsOf: manPage, encoding: .utf8).prefix { $0 != "\n" }
  #expect(header.hasPrefix(".TH OPRUN 1 "))
  #expect(header.contains("\"oprun \(oprunVersion)\""), "\(header)")
}
