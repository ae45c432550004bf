/// The one reader of event lines (SPEC §2): a JSON object as the event stream writes it, read
/// back into the ``RunEvent`` it was written from. `oprun report` and `oprun graph --run`
/// (``RecordedRun``) and `oprun ctl watch` all read through it, so that a field the stream
/// carries means the same to each of them.
///
/// Names are resolved by the caller's ``EventLineNames``: a run's graph, or a recording that
/// learns its jobs as lines name them. What the stream does not carry is not made up: a
/// transition's `files` (the journal's alone) stay nil, a queue's QoS is not known, and a
/// reason a job runs comes back as the run's code and words (``RunReason/recorded(code:text:)``),
/// except `resumed` and `up to date`, which are decisions of their own.
public enum EventLine {
  /// The event of a parsed line; nil for a line without `t` or `event`, an event this oprun
  /// does not know (`watch-dropped` included), a field of the wrong kind, or a job or queue
  /// `names` cannot resolve.
  public static func event(from value: JSONValue, names: inout some EventLineNames) -> RunEvent? {
    guard let time = value["t"]?.doubleValue, let name = value["event"]?.stringValue,
      let kind = kind(name, value, &names)
    else { return nil }
    return RunEvent(time: time, kind)
  }

  private static func kind(_ name: String, _ value: JSONValue, _ names: inout some EventLineNames) -> RunEvent.Kind? {
    func job() -> JobID? {
      value["job"]?.stringValue.flatMap { names.job(named: $0, template: value["template"]?.stringValue) }
    }
    func queue() -> QueueID? { value["queue"]?.stringValue.flatMap { names.queue(named: $0) } }
    switch name {
    case "run-started":
      guard let queues = value["queues"]?.objectValue, let jobs = value["jobs"]?.intValue,
        let run = value["run"]?.stringValue
      else { return nil }
      var nodes: [QueueNode] = []
      for (queue, limit) in queues {
        guard let limit = limit.intValue else { return nil }
        nodes.append(QueueNode(name: queue, maxConcurrent: limit))
      }
      return .runStarted(queues: nodes, jobs: jobs, run: run, control: value["control"]?.stringValue)
    case "transition":
      return transition(value, &names).map { .transition($0) }
    case "cancelled":
      guard let job = job(), let reason = value["reason"]?.stringValue.flatMap(CancelReason.init(rawValue:)) else {
        return nil
      }
      return .cancelled(job: job, reason: reason)
    case "cancelling":
      guard let signal = number(value["signal"], as: Int32.self), let waitingNames = strings(value["waiting"]) else {
        return nil
      }
      var waiting: [JobID] = []
      for name in waitingNames {
        guard let job = names.job(named: name, template: nil) else { return nil }
        waiting.append(job)
      }
      return .cancelling(
        signal: signal, jobs: value["jobs"]?.intValue ?? 0, waiting: waiting, grace: value["grace"]?.doubleValue ?? 0,
        killing: value["killing"]?.boolValue ?? false)
    case "queue":
      guard let queue = queue(), let state = value["state"]?.stringValue.flatMap(QueueState.init(rawValue:)) else {
        return nil
      }
      return .queueState(queue: queue, state: state)
    case "limit":
      guard let queue = queue(), let limit = value["max_concurrent"]?.intValue else { return nil }
      return .limit(queue: queue, maxConcurrent: limit)
    case "budget":
      guard let cpus = value["cpus"]?.intValue, let memory = value["memory"]?.intValue else { return nil }
      return .budget(cpus: cpus, memory: memory)
    case "priority":
      guard let job = job(), let priority = value["priority"]?.stringValue.flatMap(Priority.init(word:)) else {
        return nil
      }
      return .priority(job: job, priority: priority)
    case "control":
      guard let command = value["command"]?.stringValue, let args = strings(value["args"]),
        let ok = value["ok"]?.boolValue, let uid = number(value["peer_uid"], as: UInt32.self),
        let pid = number(value["peer_pid"], as: Int32.self)
      else { return nil }
      return .control(
        command: command, args: args, ok: ok, peerUID: uid, peerPID: pid, error: value["error"]?.stringValue)
    case "control-refused":
      guard let uid = number(value["peer_uid"], as: UInt32.self), let pid = number(value["peer_pid"], as: Int32.self)
      else { return nil }
      return .controlRefused(peerUID: uid, peerPID: pid)
    case "waiting":
      return job().map { .waitingForOtherRun(job: $0, pid: number(value["pid"], as: Int32.self)) }
    case "paused":
      return job().map { .paused(job: $0) }
    case "watch-changed":
      guard let paths = strings(value["paths"]), let count = value["count"]?.intValue else { return nil }
      return .watchChanged(paths: paths, count: count)
    case "watch-waiting":
      return value["files"]?.intValue.map { .watchWaiting(files: $0) }
    case "continued":
      return job().map { .continued(job: $0) }
    case "output":
      guard let job = job(), let text = value["text"]?.stringValue else { return nil }
      let stream = value["stream"]?.stringValue.flatMap(OutputStream.init(rawValue:)) ?? .stdout
      return .output(job: job, stream: stream, text: Array(text.utf8))
    case "completion-started":
      guard let job = job(), let pid = number(value["pid"], as: Int32.self) else { return nil }
      return .completionStarted(job: job, pid: pid)
    case "completion":
      guard let job = job(), let termination = termination(value) else { return nil }
      return .completion(job: job, termination: termination)
    case "cache-hit", "cache-stored":
      guard let job = job(), let key = value["key"]?.stringValue, let bytes = value["bytes"]?.intValue else {
        return nil
      }
      return name == "cache-hit"
        ? .cacheHit(job: job, key: key, bytes: bytes) : .cacheStored(job: job, key: key, bytes: bytes)
    case "cache-miss":
      guard let job = job(), let key = value["key"]?.stringValue else { return nil }
      return .cacheMiss(job: job, key: key)
    case "warning":
      return value["message"]?.stringValue.map { .warning($0) }
    case "run-finished":
      guard let code = number(value["exit_code"], as: Int32.self) else { return nil }
      var counts: [Outcome: Int] = [:]
      for (key, count) in value["counts"]?.objectValue ?? [] {
        if let outcome = Outcome(rawValue: key), let count = count.intValue { counts[outcome] = count }
      }
      return .runFinished(exitCode: code, counts: counts)
    default:
      return nil
    }
  }

  private static func transition(_ value: JSONValue, _ names: inout some EventLineNames) -> Transition? {
    guard let name = value["job"]?.stringValue, let queueName = value["queue"]?.stringValue,
      let from = value["from"]?.stringValue.flatMap(JobState.init(rawValue:)),
      let to = value["to"]?.stringValue.flatMap(JobState.init(rawValue:)),
      let queue = names.queue(named: queueName),
      let job = names.job(named: name, template: value["template"]?.stringValue)
    else { return nil }
    var pids: [Int32] = []
    for pid in value["pids"]?.arrayValue ?? [] {
      guard let pid = number(pid, as: Int32.self) else { return nil }
      pids.append(pid)
    }
    var transition = Transition(
      job: job, queue: queue, from: from, to: to, attempt: value["attempt"]?.intValue ?? 1, pids: pids,
      outcome: value["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:)), termination: termination(value),
      duration: value["duration"]?.doubleValue, resumed: value["resumed"]?.boolValue ?? false)
    transition.upToDate = value["up_to_date"]?.boolValue ?? false
    transition.cached = value["cached"]?.boolValue ?? false
    transition.savedSeconds = value["saves"]?.doubleValue
    transition.missingOutputs = strings(value["missing_outputs"]) ?? []
    transition.usage = usage(value)
    if from == .executing, to == .ready { transition.retryMemory = value["memory"]?.intValue }
    if value["reason"]?.stringValue == Transition.outOfMemoryReason {
      transition.outOfMemoryLimit = value["memory_limit"]?.intValue
    }
    if let code = value["why"]?.stringValue {
      transition.decision = decision(code: code, text: value["reason"]?.stringValue ?? "")
    }
    transition.description = value["description"]?.stringValue
    if let after = value["after"]?.stringValue {
      transition.readyAfter = names.job(named: after, template: nil)
    }
    return transition
  }

  /// `resumed` and `up-to-date` are decisions of their own; every other code is a reason
  /// the job runs, kept as the run worded it.
  private static func decision(code: String, text: String) -> RunDecision {
    switch code {
    case RunDecision.resumed.code: .resumed
    case RunDecision.upToDate.code: .upToDate
    case RunDecision.restored.code: .restored
    default: .runs(.recorded(code: code, text: text))
    }
  }

  /// `cpu_s`, `peak_memory` and `memory_source` together; nil unless all three are there.
  static func usage(_ value: JSONValue) -> ResourceUsage? {
    guard let cpu = value["cpu_s"]?.doubleValue, let peak = value["peak_memory"]?.intValue,
      let source = value["memory_source"]?.stringValue.flatMap(MemorySource.init(rawValue:))
    else { return nil }
    return ResourceUsage(cpuSeconds: cpu, peakMemory: peak, source: source)
  }

  /// `exit_code`, `signal` or `error` (a command that never ran), whichever is there.
  private static func termination(_ value: JSONValue) -> Termination? {
    if let code = number(value["exit_code"], as: Int32.self) { return .exited(code) }
    if let signal = number(value["signal"], as: Int32.self) { return .signalled(signal) }
    if let reason = value["error"]?.stringValue { return .notStarted(reason) }
    return nil
  }

  private static func number<Number: FixedWidthInteger>(_ value: JSONValue?, as: Number.Type) -> Number? {
    value?.intValue.flatMap(Number.init(exactly:))
  }

  private static func strings(_ value: JSONValue?) -> [String]? {
    guard let elements = value?.arrayValue else { return nil }
    var strings: [String] = []
    for element in elements {
      guard let string = element.stringValue else { return nil }
      strings.append(string)
    }
    return strings
  }
}

/// How an ``EventLine`` turns the names a line uses into ids.
public protocol EventLineNames {
  /// The job called `name` (an instance of the matrix job `template`, when the line says so);
  /// nil when there is none.
  mutating func job(named name: String, template: String?) -> JobID?
  /// The queue called `name`; nil when there is none.
  mutating func queue(named name: String) -> QueueID?
}

/// The names of a run's graph: a line naming anything else is not of this run.
public struct GraphEventNames: EventLineNames, Sendable {
  private let jobs: [String: JobID]
  private let queues: [String: QueueID]

  public init(_ graph: JobGraph) {
    jobs = Dictionary(graph.jobs.indices.map { (graph.jobs[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
    queues = Dictionary(
      graph.queues.indices.map { (graph.queues[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
  }

  public func job(named name: String, template: String?) -> JobID? { jobs[name] }

  public func queue(named name: String) -> QueueID? { queues[name] }
}
