import Glibc
import OprunCore

/// The human view of a run: one line per lifecycle transition as it happens, job output in
/// the chosen mode, warnings on the error sink, and a summary when the run finishes.
///
/// It only observes. Events arrive on one thread (see ``RunObserver``); the output sink is
/// flushed after every event, so each line is visible as soon as it is known.
public final class HumanReporter: RunObserver {
  public let graph: JobGraph
  public let options: HumanOptions
  /// What has happened so far, as the summary at the end will show it.
  public private(set) var summary: RunSummary

  let out: OutputSink
  let err: OutputSink
  let timeline: TimelineFormatter
  /// Grouped mode: output of each job not shown yet (since it began, or since its last block).
  var pendingGroups: [JobID: KeptOutput] = [:]
  /// Where grouped mode keeps output: memory up to a bound per job, then files.
  let groupedStorage: GroupedOutputStorage
  /// Grouped output could not go to a file once, and the user has been told.
  var hasWarnedOfKeptOutput = false
  /// Raw mode: the job whose line was passed through last when that line did not end in a
  /// newline (a partial line, or one ended by `\r`); the next line of oprun's or of another
  /// job needs a newline first to start on a line of its own.
  var rawLineOwner: JobID?
  /// The live status line, on a terminal and unless quiet; nil otherwise.
  var statusLine: StatusLine?

  /// A reporter writing the timeline, job output and summary to `out`, warnings to `err`;
  /// grouped output waits in `groupedStorage`.
  public init(
    graph: JobGraph, options: HumanOptions = HumanOptions(), out: OutputSink, err: OutputSink,
    groupedStorage: GroupedOutputStorage = .standard
  ) {
    self.graph = graph
    self.options = options
    self.groupedStorage = groupedStorage
    self.out = out
    self.err = err
    summary = RunSummary(jobCount: graph.jobs.count)
    timeline = TimelineFormatter(graph: graph, options: options)
    if let columns = options.statusLineColumns, options.verbosity >= .normal {
      statusLine = StatusLine(total: graph.jobs.count, columns: columns)
    }
  }

  public func observe(_ event: RunEvent) {
    summary.record(event)
    if case .transition(let transition) = event.kind, graph.jobs[transition.job].interactive {
      if transition.from == .executing { releaseHeldOutput() }
      // Its process already runs and may have written its prompt: its own `executing` line waits too.
      if transition.to == .executing { holdOutput() }
    }
    eraseStatusLine()
    switch event.kind {
    case .runStarted(let queues, let jobs, let run, let control):
      showRunStarted(at: event.time, queues: queues, jobs: jobs, run: run, control: control)
    case .transition(let transition):
      show(transition, at: event.time)
    case .cancelled(let job, let reason):
      showLine(at: event.time, "cancelled", jobName(job), timeline.style.paint("(\(reason.rawValue))", .yellow))
    case .cancelling(let signal, let jobs, let waiting, let grace, let killing):
      statusLine?.isCancelling = true
      showCancelling(at: event.time, signal: signal, jobs: jobs, waiting: waiting, grace: grace, killing: killing)
    case .queueState(let queue, let state):
      statusLine?.record(queue, state)
      showLine(at: event.time, "queue", queueName(queue), state.rawValue)
    case .limit(let queue, let maxConcurrent):
      showLine(at: event.time, "limit", queueName(queue), "max-concurrent \(maxConcurrent)")
    case .budget(let cpus, let memory):
      showLine(at: event.time, "budget", "run", "\(counted(cpus, "CPU")), \(MemoryText.text(bytes: memory)) of memory")
    case .priority(let job, let priority):
      showLine(at: event.time, "priority", jobName(job), priority.word)
    case .control(let command, let args, let ok, _, _, let error):
      showControl(at: event.time, command: command, args: args, ok: ok, error: error)
    case .controlRefused(let peerUID, let peerPID):
      showWarning("control: refused a request from uid \(peerUID) (pid \(peerPID)): not this run's user")
    case .waitingForOtherRun(let job, let pid):
      statusLine?.recordWaiting(of: job)
      let holder = pid.map { "another oprun (pid \($0))" } ?? "another oprun"
      showLine(at: event.time, "waiting", jobName(job), "for \(holder) running it in this folder")
    case .paused(let job):
      statusLine?.recordPause(of: job, paused: true)
      showLine(at: event.time, "paused", jobName(job))
    case .continued(let job):
      statusLine?.recordPause(of: job, paused: false)
      showLine(at: event.time, "continued", jobName(job))
    case .output(let job, _, let text):
      showOutput(text, of: job)
    case .completionStarted(let job, let pid):
      showLine(at: event.time, "completion", jobName(job), "pid \(pid)", from: .verbose)
    case .completion(let job, let termination):
      let text = TimelineFormatter.terminationText(termination)
      showLine(
        at: event.time, "completion", jobName(job), timeline.style.paint(text, termination.isSuccess ? nil : .red))
      showGroup(of: job)
    case .cacheStored(let job, _, let bytes):
      showLine(at: event.time, "stored", jobName(job), "in the cache, " + MemoryText.text(bytes: bytes), from: .verbose)
    case .cacheHit, .cacheMiss:
      break
    case .warning(let message):
      showWarning(message)
    case .watchChanged(let paths, let count):
      showLine(at: event.time, "changed", RunEvent.changedPathsText(paths, count: count))
    case .watchWaiting:
      break
    case .runFinished:
      releaseHeldOutput()
      showRemainingGroups()
      showSummary()
      statusLine = nil
      err.flush()
    }
    drawStatusLine(at: event.time)
    out.flush()
  }

  /// An interactive job has the terminal: every line from its `executing` one on — other
  /// jobs' and oprun's own, warnings included — waits until it stops executing (as ninja's
  /// console pool), so that none is written over its prompt.
  private func holdOutput() {
    out.flush()
    err.flush()
    out.hold(in: groupedStorage)
    if err !== out { err.hold(in: groupedStorage) }
  }

  private func releaseHeldOutput() {
    out.release()
    if err !== out { err.release() }
  }

  private func show(_ transition: Transition, at time: Double) {
    statusLine?.record(transition, interactive: graph.jobs[transition.job].interactive)
    let name = jobName(transition.job)
    switch transition.to {
    case .pending:
      showLine(at: time, "pending", name, from: .verbose)
    case .ready where transition.from == .executing:
      // A failed attempt goes back to its queue to be run again.
      var ending = transition.termination.map(TimelineFormatter.terminationText) ?? "failed"
      if let limit = transition.outOfMemoryLimit { ending = TimelineFormatter.outOfMemoryText(limit: limit) }
      if !transition.missingOutputs.isEmpty {
        ending += ", " + TimelineFormatter.missingOutputsText(transition.missingOutputs)
      }
      if let memory = transition.retryMemory { ending += "; its memory doubled to \(MemoryText.text(bytes: memory))" }
      showLine(at: time, "ready", name, "retrying: attempt \(transition.attempt - 1) ended with \(ending)")
    case .ready:
      // Under --resume, each job says what was decided for it. A job whose files decide is
      // ready before the decision: its `finished` line says "up to date", or its `executing`
      // line why it runs, so its `ready` line is one only when every one is asked for.
      let decision = transition.decision
      let decidedLater = decision == nil && graph.jobs[transition.job].tracksFiles
      showLine(
        at: time, "ready", name, decision.map { PlanText.resumeReason($0, in: graph) } ?? "",
        from: decision == .upToDate || decidedLater ? .verbose : .normal)
    case .executing:
      // Quiet runs of many jobs format no line they would not print.
      guard options.verbosity >= .normal else { return }
      var detail = timeline.executingDetail(
        transition, queueName: queueName(transition.queue), commands: graph.jobs[transition.job].commands)
      // A job whose files decided says why it runs as it starts: it was ready before they said.
      if let decision = transition.decision {
        detail += (detail.isEmpty ? "" : " · ") + PlanText.resumeReason(decision, in: graph)
      }
      showLine(at: time, "executing", name, detail)
    case .finished:
      defer { showGroup(of: transition.job) }
      guard let result = summary.results.last, result.job == transition.job else { return }
      if result.isFailure || options.verbosity >= .normal {
        showLine(at: time, "finished", name, timeline.outcomeDetail(result), from: result.isFailure ? .quiet : .normal)
      }
    }
  }

  private func showRunStarted(at time: Double, queues: [QueueNode], jobs: Int, run: String, control: String?) {
    var parts = [counted(jobs, "job")]
    parts.append(
      "queues " + queues.map { "\(DisplayText.escaped($0.name)) ×\($0.maxConcurrent)" }.joined(separator: ", "))
    parts.append("run " + run)
    if let control { parts.append("control " + control) }
    showLine(
      at: time, "started", DisplayText.escaped(graph.manifest.name), parts.joined(separator: " · "), from: .verbose)
  }

  /// `interrupted  cancelling 3 jobs; waiting up to 5s for stubborn — Ctrl-C again to kill now`:
  /// what the signal does, and what a second one would. Not for SIGPIPE: no one reads this.
  private func showCancelling(
    at time: Double, signal: Int32, jobs: Int, waiting: [JobID], grace: Double, killing: Bool
  ) {
    guard signal != SIGPIPE else { return }
    let word = signal == SIGINT ? "interrupted" : signal == SIGTERM ? "terminated" : SignalName.of(signal)
    let names = Listing.bounded(waiting.map(jobName), limit: 3)
    var detail: String
    if killing {
      detail = waiting.isEmpty ? "again: nothing left to kill" : "again: killing " + names + " now"
    } else {
      detail = "cancelling " + counted(jobs, "job")
      if !waiting.isEmpty {
        let again = signal == SIGINT ? "Ctrl-C" : SignalName.of(signal)
        detail += "; waiting up to \(Self.seconds(grace)) for \(names) — \(again) again to kill now"
      }
    }
    showLine(at: time, word, timeline.style.paint(detail, .yellow), from: .quiet)
  }

  /// `5s`, `0.5s`, `2m03s`: a grace period as given.
  private static func seconds(_ value: Double) -> String {
    if value < 60, value == value.rounded() { return "\(Int(value))s" }
    return value < 60 ? DecimalText.string(value, fractionDigits: 1) + "s" : TimeText.duration(value)
  }

  /// `control   cancel build  ok`, or `refused: …`; requests that change nothing (`status`,
  /// `watch`) only when verbose, so that a script polling the run does not fill the timeline.
  private func showControl(at time: Double, command: String, args: [String], ok: Bool, error: String?) {
    let changesNothing = ok && (command == "status" || command == "watch")
    let request = DisplayText.escaped(([command] + args).joined(separator: " "))
    let detail = ok ? "ok" : timeline.style.paint("refused: " + DisplayText.escaped(error ?? "unknown reason"), .yellow)
    showLine(at: time, "control", request, detail, from: changesNothing ? .verbose : .normal)
  }

  func showWarning(_ message: String) {
    out.flush()
    err.write("oprun: warning: " + message + "\n")
    err.flush()
  }

  /// Writes a timeline line when the verbosity is at least `minimum`.
  func showLine(
    at time: Double, _ word: String, _ name: String, _ detail: String = "",
    from minimum: HumanOptions.Verbosity = .normal
  ) {
    guard options.verbosity >= minimum else { return }
    closeRawLine()
    out.write(timeline.line(at: time, word, name, detail))
  }

  func jobName(_ job: JobID) -> String { graph.reportedName(job: job) }

  func queueName(_ queue: QueueID) -> String { graph.reportedName(queue: queue) }
}
