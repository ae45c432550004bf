/// A run read back from its `--events` file (SPEC §2), finished or cut off: the one reader of
/// that file, for what `oprun graph --run` and `oprun report` show.
///
/// It keeps what the stream says and nothing it does not: a job that never appears is not
/// in `jobs`, a job cut off mid-run has no `outcome`, and a line it cannot read is counted in
/// `unreadableLines` and skipped, never fatal, so that a run killed half-way still shows.
public struct RecordedRun: Sendable {
  /// One job as its lines tell it, times in seconds since the run started.
  public struct Job: Sendable {
    public var name: String
    /// The matrix job it is an instance of (`template`), when it is one.
    public var template: String?
    public var queue: String
    /// When it became pending: its first line.
    public var pending: Double?
    /// When it last became ready.
    public var ready: Double?
    /// The dependency whose finishing made it ready (`after`), when the stream says.
    public var after: String?
    /// Each time it ran: one per attempt, a retry included.
    public var attempts: [Attempt] = []
    /// When it became finished.
    public var finished: Double?
    public var outcome: Outcome?
    public var exitCode: Int?
    public var signal: Int?
    /// Its duration as the run measured it (0 for a resumed or never started job).
    public var duration: Double?
    /// Why it could not start, when it could not (`failed (not started)`).
    public var startError: String?
    public var resumed = false
    /// Why and when its cancelled flag was raised.
    public var cancelled: (reason: CancelReason, time: Double)?
    /// Why the run skipped it or chose it, as the stream words it (`why`/`reason`).
    public var reason: String?
    /// Each time it was paused (`ctl pause`), until it was continued (nil: never, or not before the end).
    public var pauses: [Interval] = []
    /// How its completion command ended, when it had one.
    public var completion: (exitCode: Int?, signal: Int?)?

    /// When it first started executing.
    public var started: Double? { attempts.first?.start }
  }

  /// One attempt: from `ready → executing` to the transition that ended it.
  public struct Attempt: Sendable, Equatable {
    public var number: Int
    public var start: Double
    /// When it ended; nil when the stream was cut off while it ran.
    public var end: Double?
    public var pids: [Int]
    public var exitCode: Int?
    public var signal: Int?
  }

  /// A span of time; `end` is nil when it had not ended when the stream did.
  public struct Interval: Sendable, Equatable {
    public var start: Double
    public var end: Double?
  }

  public struct Queue: Sendable {
    public var name: String
    /// Its limit as the run started.
    public var maxConcurrent: Int
    /// Each change of the limit (`ctl limit`): when, and to what.
    public var limitChanges: [(time: Double, maxConcurrent: Int)] = []
    /// Each time it was suspended, until resumed.
    public var suspensions: [Interval] = []
  }

  /// The RUN-ID, when the stream has its `run-started`.
  public var run: String?
  /// The number of jobs `run-started` announced.
  public var announcedJobs: Int?
  /// Queues in the order `run-started` lists them (the main queue first), then any other a
  /// job names.
  public var queues: [Queue] = []
  /// Jobs in the order of their first line, which is manifest order for a run.
  public var jobs: [Job] = []
  /// `run-finished`'s exit status; nil when the stream was cut off.
  public var exitCode: Int?
  /// `run-finished`'s counts per outcome.
  public var counts: [Outcome: Int] = [:]
  /// The `t` of the last line read: how long the run lasted, or ran before the stream ended.
  public var end: Double = 0
  /// `warning` lines, in order.
  public var warnings: [String] = []
  /// Lines that are no JSON object with a `t` and an `event` (1-based), skipped.
  public var unreadableLines: [Int] = []
  /// Lines read as events: 0 for a file that holds no event at all.
  public var eventCount = 0

  /// Whether the stream ends with `run-finished`.
  public var isComplete: Bool { exitCode != nil }

  /// Each matrix job of the run with the indices in ``jobs`` of its instances, in the
  /// order of each one's first instance.
  public var matrices: [(template: String, jobs: [Int])] {
    var groups: [(template: String, jobs: [Int])] = []
    var groupOf: [String: Int] = [:]
    for (index, job) in jobs.enumerated() {
      guard let template = job.template else { continue }
      if let group = groupOf[template] {
        groups[group].jobs.append(index)
      } else {
        groupOf[template] = groups.count
        groups.append((template, [index]))
      }
    }
    return groups
  }

  /// The job named `name`.
  public func job(named name: String) -> Job? {
    jobIndex[name].map { jobs[$0] }
  }

  private var jobIndex: [String: Int] = [:]
  private var queueIndex: [String: Int] = [:]

  public init() {}

  /// Reads the lines of an events file; each line on its own, so a torn last line (a run
  /// killed mid-write) costs that line alone.
  public init(eventLines bytes: some Collection<UInt8>) {
    var lineNumber = 0
    var lineStart = bytes.startIndex
    var index = bytes.startIndex
    while index != bytes.endIndex {
      if bytes[index] == UInt8(ascii: "\n") {
        lineNumber += 1
        read(line: bytes[lineStart..<index], number: lineNumber)
        lineStart = bytes.index(after: index)
      }
      index = bytes.index(after: index)
    }
    if lineStart != bytes.endIndex {
      lineNumber += 1
      read(line: bytes[lineStart..<bytes.endIndex], number: lineNumber)
    }
  }

  private mutating func read(line: some Collection<UInt8>, number: Int) {
    if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) {
      return
    }
    guard case .success(let value) = JSONValue.parse(line), let time = value["t"]?.doubleValue,
      let event = value["event"]?.stringValue
    else {
      unreadableLines.append(number)
      return
    }
    end = max(end, time)
    eventCount += 1
    apply(event, value, at: time)
  }

  private mutating func apply(_ event: String, _ value: JSONValue, at time: Double) {
    switch event {
    case "run-started":
      run = value["run"]?.stringValue
      announcedJobs = value["jobs"]?.intValue
      for (name, limit) in value["queues"]?.objectValue ?? [] {
        queues[queueNamed(name)].maxConcurrent = limit.intValue ?? 1
      }
    case "transition":
      transition(value, at: time)
    case "cancelled":
      guard let name = value["job"]?.stringValue,
        let reason = value["reason"]?.stringValue.flatMap(CancelReason.init(rawValue:))
      else { return }
      let index = jobNamed(name, queue: value["queue"]?.stringValue)
      if jobs[index].cancelled == nil { jobs[index].cancelled = (reason, time) }
    case "queue":
      guard let name = value["queue"]?.stringValue, let state = value["state"]?.stringValue else { return }
      let index = queueNamed(name)
      if state == QueueState.suspended.rawValue {
        if queues[index].suspensions.last.map({ $0.end != nil }) ?? true {
          queues[index].suspensions.append(Interval(start: time, end: nil))
        }
      } else if state == QueueState.resumed.rawValue, let last = queues[index].suspensions.indices.last,
        queues[index].suspensions[last].end == nil
      {
        queues[index].suspensions[last].end = time
      }
    case "limit":
      guard let name = value["queue"]?.stringValue, let limit = value["max_concurrent"]?.intValue else { return }
      queues[queueNamed(name)].limitChanges.append((time, limit))
    case "paused", "continued":
      guard let name = value["job"]?.stringValue else { return }
      let index = jobNamed(name, queue: nil)
      if event == "paused" {
        jobs[index].pauses.append(Interval(start: time, end: nil))
      } else if let last = jobs[index].pauses.indices.last, jobs[index].pauses[last].end == nil {
        jobs[index].pauses[last].end = time
      }
    case "completion":
      guard let name = value["job"]?.stringValue else { return }
      jobs[jobNamed(name, queue: nil)].completion = (value["exit_code"]?.intValue, value["signal"]?.intValue)
    case "warning":
      if let message = value["message"]?.stringValue { warnings.append(message) }
    case "run-finished":
      exitCode = value["exit_code"]?.intValue ?? 0
      for (key, count) in value["counts"]?.objectValue ?? [] {
        if let outcome = Outcome(rawValue: key) { counts[outcome] = count.intValue ?? 0 }
      }
    default:
      break
    }
  }

  private mutating func transition(_ value: JSONValue, at time: Double) {
    guard let name = value["job"]?.stringValue,
      let to = value["to"]?.stringValue.flatMap(JobState.init(rawValue:))
    else { return }
    let index = jobNamed(name, queue: value["queue"]?.stringValue)
    if let reason = value["reason"]?.stringValue { jobs[index].reason = reason }
    if let template = value["template"]?.stringValue { jobs[index].template = template }
    let exitCode = value["exit_code"]?.intValue
    let signal = value["signal"]?.intValue
    endRunningAttempt(of: index, at: time, exitCode: exitCode, signal: signal)
    switch to {
    case .pending:
      jobs[index].pending = jobs[index].pending ?? time
    case .ready:
      jobs[index].ready = time
      if let after = value["after"]?.stringValue { jobs[index].after = after }
    case .executing:
      let pids = (value["pids"]?.arrayValue ?? []).compactMap(\.intValue)
      let number = value["attempt"]?.intValue ?? jobs[index].attempts.count + 1
      jobs[index].attempts.append(Attempt(number: number, start: time, end: nil, pids: pids))
    case .finished:
      jobs[index].finished = time
      jobs[index].outcome = value["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:))
      jobs[index].exitCode = exitCode
      jobs[index].signal = signal
      jobs[index].duration = value["duration"]?.doubleValue
      jobs[index].startError = value["error"]?.stringValue
      jobs[index].resumed = value["resumed"]?.boolValue ?? false
    }
  }

  /// Ends the attempt still running, if there is one: any later transition of the job ends it.
  private mutating func endRunningAttempt(of index: Int, at time: Double, exitCode: Int?, signal: Int?) {
    guard let last = jobs[index].attempts.indices.last, jobs[index].attempts[last].end == nil else { return }
    jobs[index].attempts[last].end = time
    jobs[index].attempts[last].exitCode = exitCode
    jobs[index].attempts[last].signal = signal
  }

  private mutating func jobNamed(_ name: String, queue: String?) -> Int {
    if let index = jobIndex[name] {
      if let queue, jobs[index].queue.isEmpty {
        jobs[index].queue = queue
        _ = queueNamed(queue)
      }
      return index
    }
    if let queue { _ = queueNamed(queue) }
    jobs.append(Job(name: name, queue: queue ?? ""))
    jobIndex[name] = jobs.count - 1
    return jobs.count - 1
  }

  private mutating func queueNamed(_ name: String) -> Int {
    if let index = queueIndex[name] { return index }
    queues.append(Queue(name: name, maxConcurrent: 1))
    queueIndex[name] = queues.count - 1
    return queues.count - 1
  }
}
