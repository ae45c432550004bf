/// A run read back from its `--events` file (SPEC §2), finished or cut off, for what
/// `oprun graph --run` and `oprun report` show; each line read by ``EventLine``. Of the jobs'
/// `output` lines it keeps a failed or timed-out job's last ``Journal/keptOutputLines``, as
/// its journal does.
///
/// It keeps what the stream says and nothing it does not: a job that never appears is not
/// in `jobs`, a job cut off mid-run has no `outcome`, and a line it cannot read is counted in
/// `unreadableLines` and skipped, never fatal, so that a run killed half-way still shows.
public struct RecordedRun: Sendable, EventLineNames {
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
    /// Its `description`, when the stream says.
    public var description: String?
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
    /// What its commands used, every attempt together (SPEC §12), when its `finished` says.
    public var usage: ResourceUsage?

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
    /// The peak memory the transition that ended it gives: a retried attempt's own, the last
    /// attempt's the job's (the largest of every attempt's); nil when it says none.
    public var peakMemory: Int?
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
  /// `output` lines read: 0 for a stream written with `--events-output none`.
  public var outputEventCount = 0

  /// The last lines of output of each job (by its index in ``jobs``) that failed or timed out.
  public var failureOutput: [Int: OutputTail] { tails.failures }
  private var tails = FailureTails(capacity: Journal.keptOutputLines)

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
      value["event"]?.stringValue != nil
    else {
      unreadableLines.append(number)
      return
    }
    end = max(end, time)
    eventCount += 1
    // An event this oprun does not know, or one missing what it needs, is counted and passed over.
    if let event = EventLine.event(from: value, names: &self) { apply(event) }
  }

  private mutating func apply(_ event: RunEvent) {
    let time = event.time
    switch event.kind {
    case .runStarted(let queues, let jobs, let run, _):
      self.run = run
      announcedJobs = jobs
      for queue in queues { self.queues[queueNamed(queue.name)].maxConcurrent = queue.maxConcurrent }
    case .transition(let transition):
      apply(transition, at: time)
    case .cancelled(let job, let reason):
      if jobs[job].cancelled == nil { jobs[job].cancelled = (reason, time) }
    case .queueState(let queue, let state):
      switch state {
      case .suspended:
        if queues[queue].suspensions.last.map({ $0.end != nil }) ?? true {
          queues[queue].suspensions.append(Interval(start: time, end: nil))
        }
      case .resumed:
        if let last = queues[queue].suspensions.indices.last, queues[queue].suspensions[last].end == nil {
          queues[queue].suspensions[last].end = time
        }
      }
    case .limit(let queue, let maxConcurrent):
      queues[queue].limitChanges.append((time, maxConcurrent))
    case .paused(let job):
      jobs[job].pauses.append(Interval(start: time, end: nil))
    case .continued(let job):
      if let last = jobs[job].pauses.indices.last, jobs[job].pauses[last].end == nil {
        jobs[job].pauses[last].end = time
      }
    case .completion(let job, let termination):
      jobs[job].completion = (termination.exitCode.map(Int.init), termination.signal.map(Int.init))
    case .warning(let message):
      warnings.append(message)
    case .runFinished(let exitCode, let counts):
      self.exitCode = Int(exitCode)
      self.counts = counts
    case .output(let job, _, let text):
      outputEventCount += 1
      tails.record(text, of: job)
    case .priority, .budget, .control, .controlRefused, .completionStarted, .cancelling, .waitingForOtherRun,
      .watchChanged, .watchWaiting, .cacheHit, .cacheMiss, .cacheStored:
      break
    }
  }

  private mutating func apply(_ transition: Transition, at time: Double) {
    let index = transition.job
    if jobs[index].queue.isEmpty { jobs[index].queue = queues[transition.queue].name }
    if let reason = transition.decision.flatMap(Self.words(of:)) { jobs[index].reason = reason }
    if let description = transition.description { jobs[index].description = description }
    let exitCode = transition.termination?.exitCode.map(Int.init)
    let signal = transition.termination?.signal.map(Int.init)
    endRunningAttempt(of: index, at: time, exitCode: exitCode, signal: signal, peakMemory: transition.usage?.peakMemory)
    switch transition.to {
    case .pending:
      jobs[index].pending = jobs[index].pending ?? time
    case .ready:
      jobs[index].ready = time
      if let after = transition.readyAfter { jobs[index].after = jobs[after].name }
    case .executing:
      let pids = transition.pids.map(Int.init)
      jobs[index].attempts.append(Attempt(number: transition.attempt, start: time, end: nil, pids: pids))
    case .finished:
      jobs[index].finished = time
      jobs[index].outcome = transition.outcome
      tails.finish(index, outcome: transition.outcome ?? .cancelled)
      jobs[index].exitCode = exitCode
      jobs[index].signal = signal
      jobs[index].duration = transition.duration
      jobs[index].startError = transition.termination?.startFailure
      jobs[index].resumed = transition.resumed
      jobs[index].usage = transition.usage
    }
  }

  /// The words the stream gave for a decision read back.
  private static func words(of decision: RunDecision) -> String? {
    switch decision {
    case .resumed: "resumed"
    case .upToDate: "up to date"
    case .restored: "restored from cache"
    case .runs(.recorded(_, let text)): text
    case .runs: nil
    }
  }

  /// Ends the attempt still running, if there is one: any later transition of the job ends it.
  private mutating func endRunningAttempt(
    of index: Int, at time: Double, exitCode: Int?, signal: Int?, peakMemory: Int?
  ) {
    guard let last = jobs[index].attempts.indices.last, jobs[index].attempts[last].end == nil else { return }
    jobs[index].attempts[last].end = time
    jobs[index].attempts[last].exitCode = exitCode
    jobs[index].attempts[last].signal = signal
    jobs[index].attempts[last].peakMemory = peakMemory
  }

  /// The job called `name`, added when no line named it before: a recording learns its
  /// jobs from its lines, in the order they first appear.
  public mutating func job(named name: String, template: String?) -> JobID? {
    let index = jobIndex[name] ?? jobNamed(name)
    if let template { jobs[index].template = template }
    return index
  }

  /// The queue called `name`, added when no line named it before.
  public mutating func queue(named name: String) -> QueueID? {
    queueNamed(name)
  }

  private mutating func jobNamed(_ name: String) -> Int {
    jobs.append(Job(name: name, queue: ""))
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
