import OprunCore

/// A Chrome trace-event file of the run (`--trace`), for Perfetto and chrome://tracing.
///
/// Each execution of a job is a complete (`X`) event on a lane of its queue: a job takes
/// its queue's lowest free lane when it starts executing and frees it when it stops, so
/// concurrent jobs never overlap. Completion commands get lanes of their own. Cancellations
/// and queue suspensions are instant (`i`) events. Lanes are threads of one process
/// (pid 1), named by metadata events (`ci · lane 1`); tid 0 is the run itself. Times are
/// microseconds. The file is written in one go when the run finishes.
public final class TraceWriter: RunObserver {
  public let graph: JobGraph
  let sink: OutputSink

  /// One pool per queue, then one for completion commands.
  var pools: [LanePool]
  var openJobs: [JobID: OpenSlice] = [:]
  var openCompletions: [JobID: OpenSlice] = [:]
  var slices: [Slice] = []
  var instants: [Instant] = []
  var runID: String?

  public init(graph: JobGraph, sink: OutputSink) {
    self.graph = graph
    self.sink = sink
    pools = Array(repeating: LanePool(), count: graph.queues.count + 1)
  }

  public func observe(_ event: RunEvent) {
    let time = event.time
    switch event.kind {
    case .runStarted(_, _, let run, _):
      runID = run
    case .transition(let transition):
      record(transition, at: time)
    case .cancelled(let job, let reason):
      let name = "cancelled " + graph.recordedName(job: job)
      instants.append(Instant(name: name, time: time, lane: openJobs[job]?.lane, detail: ("reason", reason.rawValue)))
    case .queueState(let queue, let state):
      let name = graph.recordedName(queue: queue) + " " + state.rawValue
      instants.append(Instant(name: name, time: time, lane: nil, detail: nil))
    case .cancelling(let signal, _, _, _, let killing):
      let name = (killing ? "killing everything: " : "cancelling the run: ") + SignalName.of(signal)
      instants.append(Instant(name: name, time: time, lane: nil, detail: nil))
    case .completionStarted(let job, let pid):
      openCompletions[job] = open(group: completionGroup, at: time, pids: [pid], attempt: nil)
    case .completion(let job, let termination):
      guard let slice = openCompletions.removeValue(forKey: job) else { return }
      close(slice, name: "completion " + graph.recordedName(job: job), at: time, outcome: nil, termination: termination)
    case .runFinished:
      closeEverything(at: time)
      writeFile()
    case .limit, .budget, .priority, .output, .warning, .control, .controlRefused, .paused, .continued, .waitingForOtherRun,
      .watchChanged, .watchWaiting, .cacheHit, .cacheMiss, .cacheStored:
      break
    }
  }

  private func record(_ transition: Transition, at time: Double) {
    let job = transition.job
    if let slice = openJobs.removeValue(forKey: job) {
      let outcome = transition.to == .finished ? transition.outcome?.rawValue : "retried"
      close(
        slice, name: graph.recordedName(job: job), at: time, outcome: outcome, termination: transition.termination,
        usage: transition.usage)
    }
    if transition.to == .executing {
      let group = pools.indices.dropLast().contains(transition.queue) ? transition.queue : 0
      openJobs[job] = open(group: group, at: time, pids: transition.pids, attempt: transition.attempt)
    }
  }

  private var completionGroup: Int { pools.count - 1 }

  private func open(group: Int, at time: Double, pids: [Int32], attempt: Int?) -> OpenSlice {
    OpenSlice(lane: Lane(group: group, index: pools[group].acquire()), start: time, pids: pids, attempt: attempt)
  }

  private func close(
    _ open: OpenSlice, name: String, at time: Double, outcome: String?, termination: Termination?,
    usage: ResourceUsage? = nil
  ) {
    pools[open.lane.group].release(open.lane.index)
    slices.append(
      Slice(
        name: name, open: open, end: max(time, open.start), outcome: outcome, termination: termination, usage: usage))
  }

  /// A run that ends with something still open (it should not) still gives a valid file.
  private func closeEverything(at time: Double) {
    for (job, slice) in openJobs.sorted(by: { $0.key < $1.key }) {
      close(slice, name: graph.recordedName(job: job), at: time, outcome: nil, termination: nil)
    }
    for (job, slice) in openCompletions.sorted(by: { $0.key < $1.key }) {
      close(slice, name: "completion " + graph.recordedName(job: job), at: time, outcome: nil, termination: nil)
    }
    openJobs = [:]
    openCompletions = [:]
  }
}

extension TraceWriter {
  /// A lane of one pool: `group` is a queue's id, or the completions' pool after them.
  struct Lane: Equatable {
    var group: Int
    var index: Int
  }

  struct OpenSlice {
    var lane: Lane
    var start: Double
    var pids: [Int32]
    /// nil for a completion command.
    var attempt: Int?
  }

  struct Slice {
    var name: String
    var open: OpenSlice
    var end: Double
    /// The outcome word, `retried` for an attempt that was run again, nil for none.
    var outcome: String?
    var termination: Termination?
    /// What the transition that closed it carried: a retried attempt's figures, or on the
    /// last slice of a job every attempt's together (as its `finished` event has them).
    var usage: ResourceUsage?
  }

  struct Instant {
    var name: String
    var time: Double
    /// nil: the run's own lane.
    var lane: Lane?
    var detail: (key: StaticString, value: String)?
  }
}
