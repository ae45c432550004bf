import OprunCore

@testable import OprunRuntime

/// Files without a file system: each request is answered, `delay` seconds later on the
/// ``ManualClock``, with the snapshot scripted for its first pattern (an empty one when none
/// is), as a real checker answers later on the loop.
final class FakeFileChecker: FileChecking {
  let clock: ManualClock
  var delay: Double = 0.5
  /// By the text of the request's first pattern.
  var snapshots: [String: FileSnapshot] = [:]
  /// Every request, in order.
  private(set) var requests: [FileSetRequest] = []

  init(clock: ManualClock) {
    self.clock = clock
  }

  func snapshot(_ request: FileSetRequest, then deliver: @escaping (FileSnapshot) -> Void) {
    requests.append(request)
    let answer =
      request.patterns.first.flatMap { snapshots[$0.text] }
      ?? FileSnapshot(files: [], unmatchedPatterns: Array(request.patterns.indices), digest: "none")
    clock.schedule(after: delay) { deliver(answer) }
  }

  /// A snapshot of one file of `content`, found by the pattern `path`.
  static func file(_ path: String, _ content: String) -> FileSnapshot {
    FileSnapshot(
      files: [FileRecord(path: path, kind: .file, digest: content)], unmatchedPatterns: [], digest: path + "=" + content)
  }
}
