import Foundation
import OprunRuntime

/// A manifest's `.oprun/runs` in a temporary folder, with journals written by hand: a header
/// (or the one given) and the lines given.
struct JournalFixture {
  let folder: URL

  var runs: URL { folder.appendingPathComponent(".oprun/runs") }

  var journals: JournalFolder { JournalFolder(manifestPath: folder.appendingPathComponent("jobs.yaml").path) }

  func journal(_ run: String, start: Double, header: String? = nil, lines: [String] = []) throws {
    try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
    let header =
      header
      ?? #"{"type":"header","format":1,"run":"\#(run)","manifest":"/elsewhere/jobs.yaml","start":\#(start),"#
      + #""oprun":"0.1.0","args":[],"targets":[]}"#
    let text = ([header] + lines).map { $0 + "\n" }.joined()
    try text.write(to: runs.appendingPathComponent(run + ".ndjson"), atomically: true, encoding: .utf8)
  }

  /// A `job` line of `name`.
  static func job(_ name: String, outcome: String = "succeeded") -> String {
    #"{"type":"job","job":"\#(name)","outcome":"\#(outcome)","exit_code":0,"signal":null,"start":1,"#
      + #""duration":1,"attempt":1,"fingerprint":"00000000000000aa"}"#
  }
}
