import OprunCore

@testable import OprunRuntime

/// A real ``RunDriver`` on a ``FakeBackend`` and a ``ManualClock``, with every event it
/// delivers recorded, addressed by job names.
final class DriverHarness {
  let graph: JobGraph
  let clock = ManualClock()
  let backend: FakeBackend
  let driver: RunDriver
  let events = RecordedEvents()

  /// A run of `manifest` (YAML, as a user writes it); `failurePolicy` overrides its `on-failure`.
  init(
    _ manifest: String, failurePolicy: FailurePolicy? = nil, grace: Double = 5,
    fileTracking: ((ManualClock) -> FileTracking)? = nil
  ) {
    let source = SourceText(path: "/work/jobs.yaml", text: manifest)
    switch ManifestLoader.graph(from: source, defaultMaxConcurrent: 4) {
    case .success(let graph): self.graph = graph
    case .failure(let errors):
      fatalError("test manifest: \(DiagnosticRenderer.render(errors.diagnostics, sources: [source]))")
    }
    backend = FakeBackend(clock: clock)
    // As a plan is prepared: files decide only when some job declares them.
    let tracking = graph.jobs.contains(where: \.tracksFiles) ? fileTracking?(clock) : nil
    let plan = RunPlan(
      graph: graph, failurePolicy: failurePolicy, grace: grace, fingerprints: graph.fingerprints(),
      fileRecords: tracking?.records)
    driver = RunDriver(plan: plan, fileTracking: tracking, backend: backend, clock: clock)
    events.graph = graph
    driver.addObserver(events)
  }

  func start() {
    driver.start(run: "test-run")
  }

  /// Lets time pass until the run has finished (or `limit` seconds have passed), then ends
  /// it; returns the exit status.
  @discardableResult
  func runToEnd(limit: Double = 3600) -> Int32 {
    while !driver.isFinished, let deadline = clock.nextDeadline(), deadline <= limit {
      clock.advance(to: deadline)
    }
    precondition(driver.isFinished, "the run did not finish by \(limit) s")
    return driver.finish()
  }

  /// Lets `seconds` pass.
  func advance(by seconds: Double) {
    clock.advance(by: seconds)
  }

  /// Lets time pass until `time` seconds since the run began.
  func advance(to time: Double) {
    clock.advance(to: time)
  }

  func id(_ name: String) -> JobID { graph.job(named: name)! }

  /// Seconds since the run began (the manual clock starts at 0).
  var now: Double { clock.time }
}

extension WorkOrder {
  /// What the order sets `name` to: its last entry for it, as the backend applies them.
  func value(of name: String) -> String? {
    environment.last { $0.name == name }?.value
  }
}

/// Every event a run delivered, and short lines for assertions.
final class RecordedEvents: RunObserver {
  private(set) var all: [RunEvent] = []
  var graph: JobGraph!

  func observe(_ event: RunEvent) {
    all.append(event)
  }

  /// `a pending>ready`, `a ready>executing`, `a executing>finished failed`, `a cancelled interrupt`,
  /// `a completion-started`, `a completion exited 0`, `a output hello`, `queue main suspended`,
  /// `queue main limit 2`, `a priority high`, `control cancel a ok`, `a paused`, `a continued`.
  var lines: [String] {
    all.compactMap { line(for: $0.kind) }
  }

  func lines(of job: String) -> [String] {
    lines.filter { $0.hasPrefix(job + " ") }
  }

  var transitions: [Transition] {
    all.compactMap { event in
      if case .transition(let transition) = event.kind { return transition }
      return nil
    }
  }

  /// The job's transitions, in order.
  func transitions(of job: String) -> [Transition] {
    transitions.filter { graph.jobs[$0.job].name == job }
  }

  /// The time of the first event whose line is `line`.
  func time(of line: String) -> Double? {
    all.first { self.line(for: $0.kind) == line }?.time
  }

  /// One event as ``lines`` shows it; nil for those it leaves out.
  func line(for kind: RunEvent.Kind) -> String? {
    switch kind {
    case .transition(let transition):
      let outcome = transition.outcome.map { " \($0.rawValue)" } ?? ""
      return "\(name(transition.job)) \(transition.from)>\(transition.to)\(outcome)"
    case .cancelled(let job, let reason):
      return "\(name(job)) cancelled \(reason.rawValue)"
    case .completionStarted(let job, _):
      return "\(name(job)) completion-started"
    case .completion(let job, let termination):
      return "\(name(job)) completion \(describe(termination))"
    case .output(let job, _, let text):
      return "\(name(job)) output \(String(decoding: text, as: UTF8.self).trimmingSuffixNewline)"
    case .queueState(let queue, let state):
      return "queue \(graph.queues[queue].name) \(state.rawValue)"
    case .runStarted:
      return "run-started"
    case .runFinished(let exitCode, _):
      return "run-finished \(exitCode)"
    case .warning(let message):
      return "warning \(message)"
    case .cacheHit(let job, _, _):
      return "\(name(job)) cache-hit"
    case .cacheMiss(let job, _):
      return "\(name(job)) cache-miss"
    case .cacheStored(let job, _, _):
      return "\(name(job)) cache-stored"
    case .limit(let queue, let maxConcurrent):
      return "queue \(graph.queues[queue].name) limit \(maxConcurrent)"
    case .budget(let cpus, let memory):
      return "budget cpus=\(cpus),memory=\(memory)"
    case .priority(let job, let priority):
      return "\(name(job)) priority \(priority.word)"
    case .control(let command, let args, let ok, _, _, _):
      return "control \(([command] + args).joined(separator: " ")) \(ok ? "ok" : "refused")"
    case .controlRefused(let uid, let pid):
      return "control-refused uid \(uid) pid \(pid)"
    case .watchChanged(let paths, let count):
      return "watch-changed \(paths.joined(separator: ",")) of \(count)"
    case .watchWaiting(let files):
      return "watch-waiting \(files)"
    case .paused(let job):
      return "\(name(job)) paused"
    case .continued(let job):
      return "\(name(job)) continued"
    case .waitingForOtherRun(let job, let pid):
      return "\(name(job)) waiting for pid \(pid.map(String.init) ?? "?")"
    case .cancelling(let signal, let jobs, let waiting, let grace, let killing):
      let waitingNames = waiting.map(name).joined(separator: ",")
      return killing
        ? "killing \(signal) [\(waitingNames)]" : "cancelling \(signal) \(jobs) jobs [\(waitingNames)] grace \(grace)"
    }
  }

  private func describe(_ termination: Termination) -> String {
    switch termination {
    case .exited(let code): "exited \(code)"
    case .signalled(let signal): "signalled \(signal)"
    case .notStarted(let reason): "not started: \(reason)"
    }
  }

  private func name(_ job: JobID) -> String { graph.jobs[job].name }
}

extension String {
  fileprivate var trimmingSuffixNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
