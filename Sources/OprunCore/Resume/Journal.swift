/// A run's journal as read back (SPEC §9): its header, one record per finished job, and its
/// closing line, each from one line of NDJSON.
///
/// Read line by line and never trusted: a line that is not a JSON object of a known `type`
/// with the fields that type needs is skipped and counted in ``problems``; the rest still
/// counts. A journal whose header declares a newer format is read as having no job records,
/// since its fingerprints may mean something else.
public struct Journal: Sendable {
  public var header: JournalHeader?
  /// In the order written; a job written twice keeps its last record in ``recordsByJob``.
  public var records: [JournalRecord] = []
  public var end: JournalEnd?
  /// Lines that could not be read: 1-based line number and why; the first
  /// ``keptProblems`` of them, so that a journal of a million junk lines costs no memory.
  public var problems: [(line: Int, message: String)] = []
  /// How many lines could not be read, all of them.
  public var problemCount = 0
  /// The jobs named by lines that could not be read as their records: a record of theirs
  /// is lost here, and may have been their newest.
  public var jobsOfUnreadableLines: Set<String> = []
  /// A line that could not be read may have been any job's record: it names none that
  /// can be told.
  public var hasUnreadableLineOfUnknownJob = false
  public static let keptProblems = 1000
  /// The header declares a format newer than ``Journal/format``: no record was taken.
  public var isFromNewerFormat = false
  /// The header names an oprun newer than this one; what could be read was taken (a
  /// fingerprint it computed differently matches nothing, and its job runs again).
  public var isFromNewerOprun = false
  /// Each line that was read, as JSON, in order: what `oprun log --json` prints. Kept only
  /// when asked for.
  public var lines: [(kind: LineKind, value: JSONValue)] = []

  /// The format this oprun writes (`format` in the header).
  public static let format = 1

  /// How many of its last lines of output the record of a failed or timed-out job keeps.
  public static let keptOutputLines = 50

  public enum LineKind: Sendable {
    case header
    case job
    case end
  }

  public init() {}

  /// Each job's last record, by name.
  public var recordsByJob: [String: JournalRecord] {
    Dictionary(records.map { ($0.job, $0) }, uniquingKeysWith: { _, last in last })
  }

  /// Reads the journal in `bytes`; `keepingLines` keeps each line's JSON in ``lines``.
  public static func read(_ bytes: [UInt8], keepingLines: Bool = false) -> Journal {
    var journal = Journal()
    var lineNumber = 0
    var start = 0
    let limits = JSONLimits(maximumLength: 64 << 20, maximumDepth: 8)
    while start < bytes.count {
      lineNumber += 1
      let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
      let line = bytes[start..<newline]
      start = newline + 1
      if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { continue }
      switch JSONValue.parse(line, limits: limits) {
      case .failure(let error):
        // oprun ends every line with a newline: a last line without one was cut short.
        let cut = newline == bytes.count
        journal.noteProblem((lineNumber, cut ? "the line is incomplete" : "not JSON (\(error.message))"))
        journal.noteLostRecord(of: Self.jobNamed(in: line), ifJobLine: !Self.isHeaderOrEnd(line))
      case .success(let value):
        journal.take(value, lineNumber: lineNumber, keepingLines: keepingLines)
      }
    }
    return journal
  }

  /// Whether version `a` (dot-separated numbers) is newer than `b`; text that is no version
  /// is newer than nothing.
  static func isNewer(_ a: String, than b: String) -> Bool {
    func numbers(_ version: String) -> [Int] {
      version.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 }
    }
    let (x, y) = (numbers(a), numbers(b))
    for index in 0..<max(x.count, y.count) {
      let (p, q) = (index < x.count ? x[index] : 0, index < y.count ? y[index] : 0)
      if p != q { return p > q }
    }
    return false
  }

  /// Notes that a record of `job` (of an unknown job when nil) could not be read, when the
  /// line may have been a job's record.
  private mutating func noteLostRecord(of job: String?, ifJobLine isJobLine: Bool) {
    guard isJobLine else { return }
    if let job { jobsOfUnreadableLines.insert(job) } else { hasUnreadableLineOfUnknownJob = true }
  }

  /// The job a line that is not JSON names, when its `"job":"…"` member is whole and has no
  /// escape: oprun writes it right after the type, so a line cut short most often keeps it.
  static func jobNamed(in line: ArraySlice<UInt8>) -> String? {
    let key = Array(#""job":""#.utf8)
    guard let start = line.firstRange(of: key)?.upperBound,
      let end = line[start...].firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }),
      line[end] == UInt8(ascii: "\"")
    else { return nil }
    return String(decoding: line[start..<end], as: UTF8.self)
  }

  /// Whether a line that is not JSON began as a header or an end line, which record no job.
  static func isHeaderOrEnd(_ line: ArraySlice<UInt8>) -> Bool {
    line.starts(with: #"{"type":"header""#.utf8) || line.starts(with: #"{"type":"end""#.utf8)
  }

  mutating func noteProblem(_ problem: (line: Int, message: String)) {
    problemCount += 1
    if problems.count < Self.keptProblems { problems.append(problem) }
  }

  private mutating func take(_ value: JSONValue, lineNumber: Int, keepingLines: Bool) {
    let kind: LineKind
    switch value["type"]?.stringValue {
    case "header":
      guard let header = JournalHeader(value) else {
        return noteProblem((lineNumber, "a header without its run, manifest or start"))
      }
      if self.header != nil { return noteProblem((lineNumber, "a second header")) }
      self.header = header
      isFromNewerOprun = Self.isNewer(header.oprun, than: oprunVersion)
      isFromNewerFormat = header.format > Self.format
      kind = .header
    case "job":
      guard !isFromNewerFormat else { return }
      guard let record = JournalRecord(value) else {
        noteLostRecord(of: value["job"]?.stringValue, ifJobLine: true)
        return noteProblem((lineNumber, "a job line without its job, outcome or fingerprint"))
      }
      records.append(record)
      kind = .job
    case "end":
      guard let end = JournalEnd(value) else {
        return noteProblem((lineNumber, "an end line without its exit code"))
      }
      self.end = end
      kind = .end
    case let type?:
      return noteProblem((lineNumber, "a line of unknown type '\(type)'"))
    case nil:
      return noteProblem((lineNumber, "a line without a type"))
    }
    if keepingLines { lines.append((kind, value)) }
  }
}

/// A journal's first line: which run of which manifest, started when, by which oprun.
public struct JournalHeader: Sendable, Equatable {
  public var run: String
  /// The manifest's absolute path when the run started.
  public var manifest: String
  /// Unix time in seconds.
  public var start: Double
  public var oprun: String
  /// oprun's arguments, as given.
  public var args: [String]
  /// The jobs named on the command line (the run covered them and their dependencies);
  /// empty when every job was selected.
  public var targets: [String]
  public var format: Int

  public init(
    run: String, manifest: String, start: Double, oprun: String, args: [String], targets: [String],
    format: Int = Journal.format
  ) {
    self.run = run
    self.manifest = manifest
    self.start = start
    self.oprun = oprun
    self.args = args
    self.targets = targets
    self.format = format
  }

  init?(_ value: JSONValue) {
    guard let run = value["run"]?.stringValue, let manifest = value["manifest"]?.stringValue,
      let start = value["start"]?.doubleValue
    else { return nil }
    self.init(
      run: run, manifest: manifest, start: start, oprun: value["oprun"]?.stringValue ?? "",
      args: value["args"]?.arrayValue?.compactMap(\.stringValue) ?? [],
      targets: value["targets"]?.arrayValue?.compactMap(\.stringValue) ?? [],
      format: value["format"]?.intValue ?? 1)
  }
}

/// One finished job in a journal.
public struct JournalRecord: Sendable, Equatable {
  public var job: String
  public var outcome: Outcome
  public var exitCode: Int?
  public var signal: Int?
  /// Unix time in seconds: when it began executing, or finished without executing.
  public var start: Double
  /// Seconds executing; 0 when it did not execute.
  public var duration: Double
  public var fingerprint: UInt64
  /// Each part of the fingerprint, when the line has them.
  public var parts: FingerprintParts
  /// It did not run: an earlier journal showed it unchanged.
  public var resumed: Bool
  /// It did not run: its inputs and outputs showed it up to date (SPEC §10).
  public var upToDate = false
  /// Its outputs were restored from the cache: nothing ran (SPEC §14).
  public var cached = false
  /// What its success recorded of its files; nil for a job that declares none, or a failure.
  public var files: RecordedFiles?
  /// For a failure: its last lines of output (``Journal/keptOutputLines`` at most), oldest
  /// first, without their newlines; empty for any other record, and in a journal written
  /// before records kept them.
  public var output: [String] = []
  /// For a failure: how many lines it printed in all, those left out of ``output`` included.
  public var outputLines = 0
  /// What its commands used, every attempt together (SPEC §12); nil when it ran nothing, or
  /// in a journal written before records said.
  public var usage: ResourceUsage?

  /// Whether it stands as the job's newest record for SPEC §10: a run in which the job never
  /// started (skipped, or cancelled before it ran) leaves the record before it standing.
  public var started: Bool {
    switch outcome {
    case .skipped: false
    case .cancelled: exitCode != nil || signal != nil || duration > 0
    case .succeeded, .failed, .timedOut: true
    }
  }

  public init(
    job: String, outcome: Outcome, exitCode: Int? = nil, signal: Int? = nil, start: Double = 0, duration: Double = 0,
    fingerprint: UInt64, parts: FingerprintParts = [:], resumed: Bool = false
  ) {
    self.job = job
    self.outcome = outcome
    self.exitCode = exitCode
    self.signal = signal
    self.start = start
    self.duration = duration
    self.fingerprint = fingerprint
    self.parts = parts
    self.resumed = resumed
  }

  /// The record of a `job` line; nil without its job, outcome or fingerprint. Members are
  /// taken in one pass: a resume of 100,000 jobs reads 100,000 of these.
  init?(_ value: JSONValue) {
    guard let members = value.objectValue else { return nil }
    var job: String?
    var outcome: Outcome?
    var fingerprint: UInt64?
    var record = JournalRecord(job: "", outcome: .failed, fingerprint: 0)
    var cpuSeconds: Double?
    var peakMemory: Int?
    var memorySource: MemorySource?
    for (key, member) in members {
      switch key {
      case "job": job = member.stringValue
      case "outcome": outcome = member.stringValue.flatMap(Outcome.init)
      case "fingerprint": fingerprint = member.stringValue.flatMap(JobFingerprint.value(of:))
      case "exit_code": record.exitCode = member.intValue
      case "signal": record.signal = member.intValue
      case "start": record.start = member.doubleValue ?? 0
      case "duration": record.duration = member.doubleValue ?? 0
      case "resumed": record.resumed = member.boolValue ?? false
      case "up_to_date": record.upToDate = member.boolValue ?? false
      case "cached": record.cached = member.boolValue ?? false
      case "output": record.output = member.arrayValue?.compactMap(\.stringValue) ?? []
      case "output_lines": record.outputLines = member.intValue ?? 0
      case "cpu_s": cpuSeconds = member.doubleValue
      case "peak_memory": peakMemory = member.intValue
      case "memory_source": memorySource = member.stringValue.flatMap(MemorySource.init(rawValue:))
      case "inputs": record.files = RecordedFiles(line: value)
      case "parts":
        for (name, hash) in member.objectValue ?? [] {
          if let part = FingerprintPart(rawValue: name), let hash = hash.stringValue.flatMap(JobFingerprint.value(of:))
          {
            record.parts[part] = hash
          }
        }
      default: break
      }
    }
    guard let job, let outcome, let fingerprint else { return nil }
    record.job = job
    record.outcome = outcome
    record.fingerprint = fingerprint
    if let cpuSeconds, let peakMemory, let memorySource {
      record.usage = ResourceUsage(cpuSeconds: cpuSeconds, peakMemory: peakMemory, source: memorySource)
    }
    self = record
  }
}

/// A journal's last line: how the run ended.
public struct JournalEnd: Sendable, Equatable {
  public var exitCode: Int
  public var counts: [Outcome: Int]
  /// Seconds from the run's start to its end.
  public var duration: Double?
  /// How many of the succeeded jobs were resumed; nil when the line does not say.
  public var resumed: Int?

  public init(exitCode: Int, counts: [Outcome: Int], duration: Double?, resumed: Int? = nil) {
    self.exitCode = exitCode
    self.counts = counts
    self.duration = duration
    self.resumed = resumed
  }

  init?(_ value: JSONValue) {
    guard let exitCode = value["exit_code"]?.intValue else { return nil }
    var counts: [Outcome: Int] = [:]
    for (key, member) in value["counts"]?.objectValue ?? [] {
      if let outcome = Outcome(rawValue: key), let count = member.intValue { counts[outcome] = count }
    }
    self.init(
      exitCode: exitCode, counts: counts, duration: value["duration"]?.doubleValue, resumed: value["resumed"]?.intValue)
  }
}
