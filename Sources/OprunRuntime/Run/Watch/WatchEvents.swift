import Glibc
import OprunCore

/// The events of `--watch` between cycles (SPEC §13), in the event stream the cycles write
/// to: `watch-waiting` (`files`) and `watch-changed` (`paths`, at most 100, and `count`).
/// `t` is seconds since watching began, as a run's `t` counts from its start.
struct WatchEvents {
  /// Where the stream goes: nil without `--events`, `-` for standard output.
  let path: String?
  let startedAt = MonotonicClock.now()

  /// Paths in one `watch-changed` event at most.
  static let pathLimit = 100

  func waiting(files: Int) {
    append("watch-waiting", [("files", .number(String(files)))])
  }

  func changed(_ paths: [String], relativeTo folder: String) {
    let shown = paths.prefix(Self.pathLimit).map { path -> JSONValue in
      .string(path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path)
    }
    append("watch-changed", [("paths", .array(shown)), ("count", .number(String(paths.count)))])
  }

  private func append(_ name: String, _ members: [(key: String, value: JSONValue)]) {
    guard let path else { return }
    let time = String(format6(MonotonicClock.now() - startedAt))
    let line = JSONValue.object([("t", .number(time)), ("event", .string(name))] + members).encoded + [0x0A]
    let fd = path == "-" ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    defer { if fd != STDOUT_FILENO { close(fd) } }
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  }

  /// Seconds with six decimals, as the run's events give them.
  private func format6(_ seconds: Double) -> String {
    let micros = Int((seconds * 1_000_000).rounded())
    let fraction = String(micros % 1_000_000)
    return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
  }
}
