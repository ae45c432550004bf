import OprunCore

/// The machine-readable event stream (`--events`, SPEC §2): one JSON object per line,
/// each written with a single `write(2)` as soon as it is known.
///
/// Every object starts with `t` (seconds since the run started) and `event`, then the
/// event's fields in a fixed order. A `pending → ready` transition has `after`: the
/// dependency whose finishing made the job ready (the last to finish), absent for a job with
/// none or made ready by its cancellation, so that a reader can follow a run's critical path
/// back from its last job. Beyond the required events it writes
/// `completion-started` {`job`, `pid`} and `warning` {`message`}; a refused `control` request
/// has its `error`. Job output is written as `output` {`job`, `stream`, `text`} lines (invalid
/// UTF-8 as U+FFFD), one per line a job printed, in order with the transitions, so that a
/// failure's cause is in the file (`oprun report` shows a failed job's last lines); `--events-output
/// none` leaves them out. The control channel's `watch` stream (SPEC §8) is the same encoding,
/// output always included: one encoder serves both.
public final class EventStreamWriter: RunObserver {
  public let graph: JobGraph
  /// Takes each complete line, newline included; the bytes are not retained.
  private let deliver: ([UInt8]) -> Void
  /// Whether job output is encoded as `output` lines.
  private let includesOutput: Bool
  /// Reused between lines so that writing an event allocates nothing once warm.
  private var line = JSONObjectWriter()
  /// `run-finished` is the last line: a warning about a sink that failed later is not written.
  private var isFinished = false

  /// The `--events` stream, written and flushed to `sink` line by line, job output included
  /// when `includingOutput`.
  public convenience init(graph: JobGraph, sink: OutputSink, includingOutput: Bool) {
    self.init(graph: graph, includingOutput: includingOutput) { line in
      sink.write(line)
      sink.flush()
    }
  }

  /// Hands every line to `deliver`, job output included when `includingOutput`.
  public init(graph: JobGraph, includingOutput: Bool, deliver: @escaping ([UInt8]) -> Void) {
    self.graph = graph
    self.includesOutput = includingOutput
    self.deliver = deliver
  }

  public func observe(_ event: RunEvent) {
    guard !isFinished else { return }
    if case .output = event.kind, !includesOutput { return }
    line.reset()
    line.field("t", event.time)
    if case .output(let job, let stream, let text) = event.kind {
      line.field("event", "output")
      writeJob(job, to: &line)
      line.field("stream", stream.rawValue)
      line.field("text", String(decoding: text, as: UTF8.self))
    } else {
      guard let name = Self.name(of: event.kind) else { return }
      if case .runFinished = event.kind { isFinished = true }
      line.field("event", name)
      writeFields(of: event.kind, to: &line)
    }
    line.close(newline: true)
    deliver(line.bytes)
  }

  /// `output-skipped` {`job`, `lines`, `bytes`}: output of `job` that the watch history left
  /// out (``ControlLimits/unwatchedOutputLimit``), at the place it was left out.
  public func observeSkippedOutput(job: JobID, lines: Int, bytes: Int, at time: Double) {
    guard !isFinished, includesOutput else { return }
    line.reset()
    line.field("t", time)
    line.field("event", "output-skipped")
    writeJob(job, to: &line)
    line.field("lines", lines)
    line.field("bytes", bytes)
    line.close(newline: true)
    deliver(line.bytes)
  }

  /// The `event` value of `kind`; nil for events the stream leaves out.
  static func name(of kind: RunEvent.Kind) -> String? {
    switch kind {
    case .runStarted: "run-started"
    case .transition: "transition"
    case .cancelled: "cancelled"
    case .cancelling: "cancelling"
    case .queueState: "queue"
    case .limit: "limit"
    case .budget: "budget"
    case .priority: "priority"
    case .control: "control"
    case .controlRefused: "control-refused"
    case .waitingForOtherRun: "waiting"
    case .paused: "paused"
    case .continued: "continued"
    case .output: nil
    case .completionStarted: "completion-started"
    case .completion: "completion"
    case .warning: "warning"
    case .watchChanged: "watch-changed"
    case .watchWaiting: "watch-waiting"
    case .cacheHit: "cache-hit"
    case .cacheMiss: "cache-miss"
    case .cacheStored: "cache-stored"
    case .runFinished: "run-finished"
    }
  }

  private func writeFields(of kind: RunEvent.Kind, to object: inout JSONObjectWriter) {
    switch kind {
    case .runStarted(let queues, let jobs, let run, let control):
      object.field("queues") { members in
        for queue in queues { members.field(named: queue.name, queue.maxConcurrent) }
      }
      object.field("jobs", jobs)
      object.field("run", run)
      if let control { object.field("control", control) }
    case .transition(let transition):
      writeFields(of: transition, to: &object)
    case .cancelled(let job, let reason):
      writeJob(job, to: &object)
      object.field("reason", reason.rawValue)
    case .cancelling(let signal, let jobs, let waiting, let grace, let killing):
      object.field("signal", Int(signal))
      object.field("jobs", jobs)
      object.field("waiting", waiting.map(jobName))
      object.field("grace", grace)
      if killing { object.field("killing", true) }
    case .queueState(let queue, let state):
      object.field("queue", queueName(queue))
      object.field("state", state.rawValue)
    case .limit(let queue, let maxConcurrent):
      object.field("queue", queueName(queue))
      object.field("max_concurrent", maxConcurrent)
    case .budget(let cpus, let memory):
      object.field("cpus", cpus)
      object.field("memory", memory)
    case .priority(let job, let priority):
      writeJob(job, to: &object)
      object.field("priority", priority.word)
    case .control(let command, let args, let ok, let peerUID, let peerPID, let error):
      object.field("command", command)
      object.field("args", args)
      object.field("ok", ok)
      object.field("peer_uid", Int(peerUID))
      object.field("peer_pid", Int(peerPID))
      if let error { object.field("error", error) }
    case .controlRefused(let peerUID, let peerPID):
      object.field("peer_uid", Int(peerUID))
      object.field("peer_pid", Int(peerPID))
    case .waitingForOtherRun(let job, let pid):
      writeJob(job, to: &object)
      object.field("pid", pid.map(Int.init))
    case .paused(let job), .continued(let job):
      writeJob(job, to: &object)
    case .completionStarted(let job, let pid):
      writeJob(job, to: &object)
      object.field("pid", Int(pid))
    case .completion(let job, let termination):
      writeJob(job, to: &object)
      writeTermination(termination, to: &object)
    case .cacheHit(let job, let key, let bytes), .cacheStored(let job, let key, let bytes):
      writeJob(job, to: &object)
      object.field("key", key)
      object.field("bytes", bytes)
    case .cacheMiss(let job, let key):
      writeJob(job, to: &object)
      object.field("key", key)
    case .warning(let message):
      object.field("message", message)
    case .watchChanged(let paths, let count):
      object.field("paths", paths)
      object.field("count", count)
    case .watchWaiting(let files):
      object.field("files", files)
    case .runFinished(let exitCode, let counts):
      object.field("exit_code", Int(exitCode))
      object.field("counts") { members in
        for outcome in Outcome.allCases { members.field(named: outcome.rawValue, counts[outcome] ?? 0) }
      }
    case .output:
      break
    }
  }

  private func writeFields(of transition: Transition, to object: inout JSONObjectWriter) {
    writeJob(transition.job, to: &object)
    object.field("queue", queueName(transition.queue))
    object.field("from", transition.from.rawValue)
    object.field("to", transition.to.rawValue)
    object.field("attempt", transition.attempt)
    if let readyAfter = transition.readyAfter { object.field("after", jobName(readyAfter)) }
    if transition.from == .pending, graph.jobs.indices.contains(transition.job),
      let description = graph.jobs[transition.job].description
    {
      object.field("description", description)
    }
    if transition.to == .executing { object.field("pids", transition.pids.map(Int.init)) }
    if let decision = transition.decision {
      object.field("why", decision.code)
      object.field("reason", decision.text(in: graph))
    }
    // A retry: how the attempt that failed ended, as the human view says it.
    if transition.from == .executing, transition.to == .ready {
      writeTermination(transition.termination, to: &object)
      if let usage = transition.usage { object.fields(of: usage) }
      if !transition.missingOutputs.isEmpty { object.field("missing_outputs", transition.missingOutputs) }
      writeOutOfMemory(transition, to: &object)
      if let memory = transition.retryMemory { object.field("memory", memory) }
    }
    guard transition.to == .finished else { return }
    object.field("outcome", (transition.outcome ?? .cancelled).rawValue)
    writeTermination(transition.termination, to: &object)
    object.field("duration", transition.duration ?? 0)
    if let usage = transition.usage { object.fields(of: usage) }
    if transition.resumed { object.field("resumed", true) }
    if transition.upToDate { object.field("up_to_date", true) }
    if transition.cached {
      object.field("cached", true)
      object.field("saves", transition.savedSeconds ?? 0)
    }
    if !transition.missingOutputs.isEmpty { object.field("missing_outputs", transition.missingOutputs) }
    writeOutOfMemory(transition, to: &object)
  }

  /// `reason: "out-of-memory"` and the limit passed, for an attempt the kernel killed for it.
  private func writeOutOfMemory(_ transition: Transition, to object: inout JSONObjectWriter) {
    guard let limit = transition.outOfMemoryLimit else { return }
    object.field("reason", Transition.outOfMemoryReason)
    object.field("memory_limit", limit)
  }

  /// `exit_code` and `signal`, each a number or null.
  private func writeTermination(_ termination: Termination?, to object: inout JSONObjectWriter) {
    object.field("exit_code", termination?.exitCode.map(Int.init))
    object.field("signal", termination?.signal.map(Int.init))
    if let reason = termination?.startFailure { object.field("error", reason) }
  }

  private func jobName(_ job: JobID) -> String { graph.recordedName(job: job) }

  /// `job`, and for an instance of a matrix job its `template` and `matrix` {axis: value}.
  private func writeJob(_ job: JobID, to object: inout JSONObjectWriter) {
    object.field("job", jobName(job))
    guard graph.jobs.indices.contains(job), let instance = graph.jobs[job].instance else { return }
    object.field("template", instance.template)
    object.field("matrix") { members in
      for (axis, value) in zip(instance.axes, instance.values) { members.field(named: axis, value) }
    }
  }

  private func queueName(_ queue: QueueID) -> String { graph.recordedName(queue: queue) }
}
