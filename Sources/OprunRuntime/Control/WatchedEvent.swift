import OprunCore

/// A line of a watch stream read back into the ``RunEvent`` it was written from, names
/// resolved in `graph`; nil for an event this oprun does not know, or one naming a job or
/// queue the graph lacks (the caller shows those as plain lines).
enum WatchedEvent {
  static func decode(_ value: JSONValue, graph: JobGraph) -> RunEvent? {
    guard let time = value["t"]?.doubleValue, let name = value["event"]?.stringValue,
      let kind = kind(name, value, graph)
    else { return nil }
    return RunEvent(time: time, kind)
  }

  private static func kind(_ name: String, _ value: JSONValue, _ graph: JobGraph) -> RunEvent.Kind? {
    let job = value["job"]?.stringValue.flatMap(graph.job(named:))
    let queue = value["queue"]?.stringValue.flatMap(graph.queue(named:))
    switch name {
    case "run-started":
      guard let queues = value["queues"]?.objectValue, let jobs = value["jobs"]?.intValue,
        let run = value["run"]?.stringValue
      else { return nil }
      let nodes = queues.map { QueueNode(name: $0.key, maxConcurrent: $0.value.intValue ?? 1) }
      return .runStarted(queues: nodes, jobs: jobs, run: run, control: value["control"]?.stringValue)
    case "transition":
      return transition(value, job, queue).map { .transition($0) }
    case "cancelled":
      guard let job, let reason = value["reason"]?.stringValue.flatMap(CancelReason.init(rawValue:)) else { return nil }
      return .cancelled(job: job, reason: reason)
    case "queue":
      guard let queue, let state = value["state"]?.stringValue.flatMap(QueueState.init(rawValue:)) else { return nil }
      return .queueState(queue: queue, state: state)
    case "limit":
      guard let queue, let limit = value["max_concurrent"]?.intValue else { return nil }
      return .limit(queue: queue, maxConcurrent: limit)
    case "priority":
      guard let job, let priority = value["priority"]?.stringValue.flatMap(Priority.init(word:)) else { return nil }
      return .priority(job: job, priority: priority)
    case "output":
      guard let job, let text = value["text"]?.stringValue else { return nil }
      let stream = value["stream"]?.stringValue.flatMap(OutputStream.init(rawValue:)) ?? .stdout
      return .output(job: job, stream: stream, text: Array(text.utf8))
    case "completion-started":
      guard let job, let pid = value["pid"]?.intValue.flatMap(Int32.init(exactly:)) else { return nil }
      return .completionStarted(job: job, pid: pid)
    case "completion":
      guard let job, let termination = termination(value) else { return nil }
      return .completion(job: job, termination: termination)
    case "warning":
      return value["message"]?.stringValue.map { .warning($0) }
    case "run-finished":
      guard let code = value["exit_code"]?.intValue.flatMap(Int32.init(exactly:)) else { return nil }
      var counts: [Outcome: Int] = [:]
      for (key, count) in value["counts"]?.objectValue ?? [] {
        if let outcome = Outcome(rawValue: key) { counts[outcome] = count.intValue ?? 0 }
      }
      return .runFinished(exitCode: code, counts: counts)
    default:
      return nil
    }
  }

  private static func transition(_ value: JSONValue, _ job: JobID?, _ queue: QueueID?) -> Transition? {
    guard let job, let queue, let from = value["from"]?.stringValue.flatMap(JobState.init(rawValue:)),
      let to = value["to"]?.stringValue.flatMap(JobState.init(rawValue:))
    else { return nil }
    let pids = (value["pids"]?.arrayValue ?? []).compactMap { $0.intValue.flatMap(Int32.init(exactly:)) }
    return Transition(
      job: job, queue: queue, from: from, to: to, attempt: value["attempt"]?.intValue ?? 1, pids: pids,
      outcome: value["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:)), termination: termination(value),
      duration: value["duration"]?.doubleValue, resumed: value["resumed"]?.boolValue ?? false)
  }

  /// `exit_code` or `signal`, whichever is a number.
  private static func termination(_ value: JSONValue) -> Termination? {
    if let code = value["exit_code"]?.intValue.flatMap(Int32.init(exactly:)) { return .exited(code) }
    if let signal = value["signal"]?.intValue.flatMap(Int32.init(exactly:)) { return .signalled(signal) }
    return nil
  }
}
