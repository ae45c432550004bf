import Glibc
import OprunCore

/// The events of `--watch` between cycles (SPEC §13), in the event stream the cycles write
/// to, encoded as the cycles' own: `watch-waiting` (`files`) and `watch-changed` (`paths`,
/// at most ``RunEvent/watchedPathsNamed``, and `count`). `t` is seconds since watching
/// began, as a run's `t` counts from its start. (In a cycle, `watch-changed` is the driver's
/// to say, in the cycle's own stream.)
struct WatchEvents {
  /// Where the stream goes: nil without `--events`, `-` for standard output.
  let path: String?
  let startedAt = MonotonicClock.now()

  /// Writes `kind` as a line of the stream; `graph` names what the line names.
  func record(_ kind: RunEvent.Kind, graph: JobGraph) {
    guard let path else { return }
    let fd = path == "-" ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    defer { if fd != STDOUT_FILENO { close(fd) } }
    let writer = EventStreamWriter(graph: graph, includingOutput: false) { line in
      _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
    writer.observe(RunEvent(time: MonotonicClock.now() - startedAt, kind))
  }
}
