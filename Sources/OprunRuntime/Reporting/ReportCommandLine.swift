import Glibc
import OprunCore

/// `oprun report EVENTS --html OUT` (SPEC §4): the HTML page of a recorded run.
///
/// A failure's last lines come from the events file's `output` lines; from one written without
/// them (`--events-output none`), they are taken from the run's journal, found by its RUN-ID as
/// `oprun log RUN-ID` finds it, when it is there.
///
/// Exits 0 with the page written, or 2 — writing nothing — when the events file cannot be
/// read or holds no event, or the page cannot be written. The page is written to a temporary
/// file beside `OUT` and renamed over it, so a report that fails half-way leaves no half page.
public enum ReportCommandLine {
  /// Events files are read whole; a run of 100,000 jobs writes about 40 MB.
  static let sizeLimit = 1 << 30

  public static func execute(events: String, html output: String) -> Int32 {
    let bytes: [UInt8]
    switch FileContents.read(path: events, limit: sizeLimit) {
    case .success(let contents): bytes = contents
    case .failure(let failure): return fail("cannot read the events file '\(events)': \(failure.message)")
    }
    let run = RecordedRun(eventLines: bytes)
    guard run.eventCount > 0 else {
      return fail("no events in '\(events)': expected the NDJSON lines of `oprun --events`")
    }
    if let problem = writeAtomically(HTMLReport.page(of: run, journal: journal(of: run)), to: output) {
      return fail("cannot write the report '\(output)': \(problem)")
    }
    return ExitStatus.success
  }

  /// The journal of `run`, when its events hold no output and some job failed; nil when
  /// there is none to be found or read.
  static func journal(of run: RecordedRun) -> Journal? {
    guard run.outputEventCount == 0, let id = run.run,
      run.jobs.contains(where: { $0.outcome == .failed || $0.outcome == .timedOut }),
      case .journal(let file) = RunSearch.journal(
        ofRun: id, manifest: nil, defaultManifest: ManifestFile.defaultPath)
    else { return nil }
    return try? JournalFolder.read(file: file).get()
  }

  /// Writes `bytes` to a new file beside `path`, then renames it to `path`; nil when done,
  /// else what went wrong (and no file is left).
  static func writeAtomically(_ bytes: [UInt8], to path: String) -> String? {
    let temporary = path + ".tmp-\(getpid())"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return errorMessage(errno) }
    var failure: Int32 = 0
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0, errno == EINTR { continue }
        guard written > 0 else {
          failure = written < 0 ? errno : ENOSPC
          return
        }
        offset += written
      }
    }
    if failure == 0, fsync(descriptor) != 0 { failure = errno }
    if close(descriptor) != 0, failure == 0 { failure = errno }
    if failure == 0, rename(temporary, path) != 0 { failure = errno }
    guard failure != 0 else { return nil }
    unlink(temporary)
    return errorMessage(failure)
  }

  private static func fail(_ message: String) -> Int32 {
    RunCommandLine.writeAll(STDERR_FILENO, "oprun: error: " + message + "\n")
    return ExitStatus.usage
  }
}
