import Glibc
import OprunCore

/// Keeps a run's journal (SPEC §9): one more observer of the event stream, writing a header
/// when the run starts, a line per finished job and a closing line. The line of a job that
/// failed or timed out keeps its last ``Journal/keptOutputLines`` lines of output (`output`,
/// each line cut at 400 bytes) and how many it printed (`output_lines`), so that the cause of
/// a failure outlives the terminal it was printed on.
///
/// Each line is one `write(2)` of a file opened with `O_APPEND`, with no buffer in between,
/// so that a run killed by SIGKILL loses nothing it had finished; the file is synced when the
/// run finishes. The one exception: resumed jobs, which finish all at once as the run starts,
/// share writes of up to 64 KiB, taken before the run does anything else (a resume of 100,000
/// jobs would otherwise spend a third of a second in `write`). A write that fails costs one
/// warning, and the journal is written no more: the run itself never depends on it.
final class JournalWriter: RunObserver {
  let graph: JobGraph
  let fingerprints: [JobFingerprint]
  let identity: RunIdentity
  /// oprun's arguments, and the jobs named among them.
  let arguments: [String]
  let targets: [String]
  private var descriptor: Int32
  private let file: String
  private let warn: (String) -> Void
  /// When each job's current attempt began executing, in run time.
  private var executingSince: [Double]
  private var line = JSONObjectWriter()
  /// Lines of resumed jobs not yet written: they finish together as the run starts, and are
  /// written together, up to ``resumedBatch`` bytes a write, before anything else happens.
  private var resumedLines: [UInt8] = []
  /// Jobs resumed so far, for the closing line.
  private var resumedCount = 0
  static let resumedBatch = 64 << 10
  /// Where the listings of inputs and of outputs kept apart go.
  private let inputListings: FileListings
  private let outputListings: FileListings
  private var hasWarnedAboutListings = false
  /// The listings each job's record of this run names, by job name.
  private(set) var recordedListings: [String: RecordedListings] = [:]

  /// The digests of the listings one record names: its inputs', and its outputs' when they
  /// are kept apart.
  struct RecordedListings: Equatable {
    var inputs: String
    var outputs: String?
  }
  /// The last lines of each job not finished yet, and of each failure until its line is written.
  private var tails = FailureTails(capacity: Journal.keptOutputLines)

  /// A journal written to `descriptor` (the open file `file`), warning through `warn`.
  init(
    descriptor: Int32, file: String, graph: JobGraph, fingerprints: [JobFingerprint], identity: RunIdentity,
    arguments: [String], targets: [String], warn: @escaping (String) -> Void
  ) {
    self.descriptor = descriptor
    self.file = file
    self.graph = graph
    self.fingerprints = fingerprints
    self.identity = identity
    self.arguments = arguments
    self.targets = targets
    self.warn = warn
    executingSince = Array(repeating: -1, count: graph.jobs.count)
    let state = StateFolder(holdingJournal: file)
    inputListings = FileListings(.inputs, state: state)
    outputListings = FileListings(.outputs, state: state)
  }

  func observe(_ event: RunEvent) {
    guard descriptor >= 0 else { return }
    if case .transition(let transition) = event.kind, transition.resumed {
      resumedCount += 1
      makeRecord(of: transition, at: event.time)
      resumedLines.append(contentsOf: line.bytes)
      if resumedLines.count >= Self.resumedBatch { writeResumedLines() }
      return
    }
    switch event.kind {
    case .transition(let transition) where transition.to == .ready:
      break
    default:
      // Written before any job starts or finishes, and before the end: a resumed job whose
      // line is lost is only run again by the next --resume.
      if !resumedLines.isEmpty { writeResumedLines() }
    }
    switch event.kind {
    case .runStarted:
      writeHeader()
    case .transition(let transition) where transition.to == .executing:
      executingSince[transition.job] = event.time
    case .output(let job, _, let text):
      tails.record(text, of: job)
    case .transition(let transition) where transition.to == .finished:
      makeRecord(of: transition, at: event.time)
      append(line.bytes)
    case .runFinished(let exitCode, let counts):
      writeEnd(exitCode: exitCode, counts: counts, at: event.time)
      // SPEC §9: synced when the run ends (1–2 ms of a one-job run here, 12 ms under strace).
      fsync(descriptor)
      close(descriptor)
      descriptor = -1
    default:
      break
    }
  }

  private func writeResumedLines() {
    append(resumedLines)
    resumedLines.removeAll(keepingCapacity: true)
  }

  private func writeHeader() {
    line.reset()
    line.field("type", "header")
    line.field("format", Journal.format)
    line.field("run", identity.id)
    line.field("manifest", identity.manifestPath)
    line.field("start", identity.started, fractionDigits: 3)
    line.field("oprun", oprunVersion)
    line.field("args", arguments)
    line.field("targets", targets)
    line.close(newline: true)
    append(line.bytes)
  }

  /// The job line of `transition` (a `finished` one), in `line`.
  private func makeRecord(of transition: Transition, at time: Double) {
    let job = transition.job
    let fingerprint = fingerprints[job]
    let executed = executingSince[job] >= 0
    line.reset()
    line.field("type", "job")
    line.field("job", graph.jobs[job].name)
    line.field("outcome", (transition.outcome ?? .cancelled).rawValue)
    line.field("exit_code", transition.termination?.exitCode.map(Int.init))
    line.field("signal", transition.termination?.signal.map(Int.init))
    line.field("start", identity.started + (executed ? executingSince[job] : time), fractionDigits: 3)
    line.field("duration", transition.duration ?? 0, fractionDigits: 3)
    line.field("attempt", transition.attempt)
    if let usage = transition.usage { line.fields(of: usage) }
    line.field("fingerprint", hex: fingerprint.value)
    line.field("parts") { parts in
      for part in FingerprintPart.allCases { parts.field(named: part.rawValue, hex: fingerprint.parts[part] ?? 0) }
    }
    if transition.resumed { line.field("resumed", true) }
    if transition.upToDate { line.field("up_to_date", true) }
    if transition.cached { line.field("cached", true) }
    if let files = transition.files { writeFiles(files, of: transition) }
    tails.finish(job, outcome: transition.outcome ?? .cancelled)
    if let tail = tails.take(job) {
      line.field("output", tail.lines.map { String(decoding: $0, as: UTF8.self) })
      line.field("output_lines", tail.totalLines)
    }
    line.close(newline: true)
  }

  /// What a success records of a job's files (SPEC §10): its inputs' digest, with their
  /// listing kept beside the journals; each output, or, for many, their digest, with their
  /// listing kept beside the journals too; its result; its dependencies' results.
  private func writeFiles(_ files: FinishedFiles, of transition: Transition) {
    let recorded = files.recorded
    keep(files.inputs, digest: recorded.inputs, in: inputListings)
    recordedListings[graph.jobs[transition.job].name] = RecordedListings(
      inputs: recorded.inputs, outputs: recorded.outputs.keptDigest)
    line.field("inputs", recorded.inputs)
    switch recorded.outputs {
    case .listed(let outputs):
      line.field("outputs", objects: outputs) { output, object in
        object.field("path", output.path)
        object.field("kind", output.kind.rawValue)
        object.field("sha256", output.digest)
      }
    case .kept(let digest):
      // Named even when it cannot be kept: outputs with this digest are still the recorded ones.
      keep(files.outputs, digest: digest, in: outputListings)
      line.field("outputs_listing", digest)
    }
    line.field("result", recorded.result)
    line.field("dependency_results") { members in
      for (name, result) in recorded.dependencies.sorted(by: { $0.key < $1.key }) { members.field(named: name, result) }
    }
    if let path = recorded.inputChangedWhileRunning { line.field("input_changed_while_running", path) }
  }

  /// Keeps `listing` under `digest` in `listings`; one warning for the run when it cannot.
  private func keep(_ listing: FileListing, digest: String, in listings: FileListings) {
    guard !listings.keep(listing, digest: digest), !hasWarnedAboutListings else { return }
    hasWarnedAboutListings = true
    warn("cannot keep the listings of files in '\(listings.path)'; a later run says less about what changed")
  }

  private func writeEnd(exitCode: Int32, counts: [Outcome: Int], at time: Double) {
    line.reset()
    line.field("type", "end")
    line.field("exit_code", Int(exitCode))
    line.field("counts") { members in
      for outcome in Outcome.allCases { members.field(named: outcome.rawValue, counts[outcome] ?? 0) }
    }
    line.field("duration", time, fractionDigits: 3)
    line.field("resumed", resumedCount)
    line.close(newline: true)
    append(line.bytes)
  }

  /// One `write(2)` of a whole line (resumed if a signal or a short write cuts it).
  private func append(_ bytes: [UInt8]) {
    let failure = bytes.withUnsafeBytes { writeWhole(descriptor, $0) }
    guard failure != 0 else { return }
    close(descriptor)
    descriptor = -1
    warn("cannot write the journal '\(file)': \(errorMessage(failure)); it is written no more")
  }
}
