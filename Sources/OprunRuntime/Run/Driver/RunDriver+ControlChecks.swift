import OprunCore

/// How the run checks a control request before it changes anything (SPEC §8): a request
/// with any problem is refused whole — every problem said, nothing changed — so that a
/// request naming several jobs where one is wrong cancels none of them.
extension RunDriver {
  /// The commands a run answers, as `oprun ctl` sends them.
  static let controlCommands = [
    "status", "cancel", "cancel-all", "suspend", "resume", "limit", "budget", "priority", "pause", "continue", "watch",
  ]

  /// What `request` asks for, checked against the run as it is now.
  func action(for request: ControlRequest) -> CheckedRequest {
    let args = request.args
    switch request.command {
    case "status": return noArguments(args, .status, command: "status")
    case "watch": return noArguments(args, .watch, command: "watch")
    case "cancel": return jobs(args, usage: "cancel JOB...", check: cancelProblem).map { .cancel($0) }
    case "cancel-all": return queues(args).map { .cancelAll($0.isEmpty ? nil : $0) }
    case "suspend": return queues(args).map { .suspend($0.isEmpty ? Array(graph.queues.indices) : $0) }
    case "resume": return queues(args).map { .resume($0.isEmpty ? Array(graph.queues.indices) : $0) }
    case "limit": return limit(args)
    case "budget": return budget(args)
    case "priority": return priority(args)
    case "pause": return jobs(args, usage: "pause JOB...", check: pauseProblem).map { .pause($0) }
    case "continue": return jobs(args, usage: "continue JOB...", check: continueProblem).map { .continue($0) }
    default:
      let hint =
        Suggestion.closest(to: request.command, among: Self.controlCommands).map(Suggestion.didYouMean)
        ?? "; expected " + Listing.words(Self.controlCommands)
      return .failure(ControlRefusal("unknown command '\(request.command)'" + hint))
    }
  }

  private func noArguments(_ args: [String], _ action: ControlAction, command: String) -> CheckedRequest {
    args.isEmpty ? .success(action) : .failure(ControlRefusal("usage: \(command) (it takes no arguments)"))
  }

  /// The jobs called `names`, each once, in the order given; each must pass `check`. A
  /// matrix job's plain name stands for those of its instances that pass (SPEC §11), and
  /// is a problem only when none does.
  private func jobs(_ names: [String], usage: String, check: (JobID) -> String?) -> Result<[JobID], ControlRefusal> {
    guard !names.isEmpty else { return .failure(ControlRefusal("usage: " + usage)) }
    var problems: [String] = []
    var chosen: [JobID] = []
    var seen = Set<JobID>()
    // Said once, after every name, however many names are unknown.
    var jobListing: String?
    for name in names {
      guard let named = jobNames.jobs(named: name) else {
        let unknown = jobNames.unknownName(name)
        problems.append(unknown.problem)
        jobListing = jobListing ?? unknown.jobListing
        continue
      }
      let unseen = named.filter { seen.insert($0).inserted }
      let passing = unseen.filter { check($0) == nil }
      if passing.isEmpty, let first = unseen.first, let problem = check(first) {
        problems.append(named.count == 1 ? problem : "no instance of job '\(name)' can be chosen: \(problem)")
      }
      chosen += passing
    }
    if let jobListing { problems.append(jobListing) }
    return problems.isEmpty ? .success(chosen) : .failure(ControlRefusal(problems.joined(separator: "; ")))
  }

  /// The queues called `names`, each once, in the order given; empty when none is named.
  private func queues(_ names: [String]) -> Result<[QueueID], ControlRefusal> {
    var problems: [String] = []
    var chosen: [QueueID] = []
    for name in names {
      guard let queue = graph.queue(named: name) else {
        problems.append(unknownQueue(name))
        continue
      }
      if !chosen.contains(queue) { chosen.append(queue) }
    }
    return problems.isEmpty ? .success(chosen) : .failure(ControlRefusal(problems.joined(separator: "; ")))
  }

  private func limit(_ args: [String]) -> CheckedRequest {
    guard args.count == 2 else { return .failure(ControlRefusal("usage: limit QUEUE N")) }
    let queue = graph.queue(named: args[0])
    let limit = Self.wholeNumber(args[1]).flatMap { $0 >= 1 ? $0 : nil }
    if let queue, let limit { return .success(.limit(queue, limit)) }
    var problems: [String] = []
    if queue == nil { problems.append(unknownQueue(args[0])) }
    if limit == nil { problems.append("bad limit '\(args[1])': expected a whole number, at least 1") }
    return .failure(ControlRefusal(problems.joined(separator: "; ")))
  }

  /// `budget cpus=N,memory=SIZE`, either part: the other stays as it is. A budget some
  /// unfinished job could never fit in is refused, naming the jobs: it would wait forever.
  /// One below what running jobs hold now is taken: they go on, and nothing starts until
  /// enough of them have ended, as a lowered `limit` does.
  private func budget(_ args: [String]) -> CheckedRequest {
    guard args.count == 1 else { return .failure(ControlRefusal("usage: budget cpus=N,memory=SIZE")) }
    let parts: ResourceNeeds
    switch BudgetArgument.parse(args[0]) {
    case .success(let parsed): parts = parsed
    case .failure(let error): return .failure(ControlRefusal("bad budget '\(args[0])': \(error)"))
    }
    guard let current = engine.resourceBudget else {
      return .failure(ControlRefusal("no job of this run declares resources: it has no budget to change"))
    }
    let budget = current.overridden(by: parts)
    let beyond = engine.jobsBeyond(budget)
    guard beyond.isEmpty else {
      let named = beyond.prefix(3).map { "job '\(graph.jobs[$0].name)' needs \(engine.needs(of: $0).description)" }
      let more = beyond.count > 3 ? " and \(counted(beyond.count - 3, "more job"))" : ""
      return .failure(
        ControlRefusal(
          "budget \(budget.description) is less than an unfinished job needs, which could then never start: "
            + named.joined(separator: ", ") + more))
    }
    return .success(.budget(budget))
  }

  private func priority(_ args: [String]) -> CheckedRequest {
    guard args.count == 2 else { return .failure(ControlRefusal("usage: priority JOB LEVEL")) }
    let level = Priority(level: args[1])
    var problems: [String] = []
    var waiting: [JobID] = []
    if let named = jobNames.jobs(named: args[0]) {
      waiting = named.filter { engine.priorityChange(of: $0) == .changed }
      if waiting.isEmpty, let job = named.first {
        let name = graph.jobs[job].name
        switch engine.priorityChange(of: job) {
        case .changed: break
        case .started: problems.append("job '\(name)' has started: only a job that waits can change priority")
        case .finished: problems.append("job '\(name)' \(stateText(job)): only a job that waits can change priority")
        }
      }
    } else {
      problems.append(jobNames.unknownName(args[0]).description)
    }
    if level == nil { problems.append(Priority.unknownLevel(args[1])) }
    if let level, problems.isEmpty { return .success(.priority(waiting, level)) }
    return .failure(ControlRefusal(problems.joined(separator: "; ")))
  }

  /// Cancelling a finished job changes nothing and says so; a job already cancelled is
  /// cancelled again, which changes nothing either, as `Operation.cancel()` does.
  private func cancelProblem(_ job: JobID) -> String? {
    engine.state(of: job) == .finished ? "job '\(graph.jobs[job].name)' \(stateText(job)): nothing to cancel" : nil
  }

  /// Only an executing job, not paused, and not being ended (cancelled or timed out: it
  /// has been signalled, and stopping it would only hold its clean-up until the kill).
  private func pauseProblem(_ job: JobID) -> String? {
    let name = graph.jobs[job].name
    guard let attempt = attempts[job], engine.state(of: job) == .executing else {
      return "job '\(name)' is not executing: it \(stateText(job))"
    }
    if attempt.pause != nil { return "job '\(name)' is already paused" }
    if engine.isCancelled(job) { return "job '\(name)' is cancelled and ending" }
    if !attempt.signalsSent.isEmpty { return "job '\(name)' has timed out and is ending" }
    return nil
  }

  private func continueProblem(_ job: JobID) -> String? {
    let name = graph.jobs[job].name
    guard let attempt = attempts[job], engine.state(of: job) == .executing else {
      return "job '\(name)' is not executing: it \(stateText(job))"
    }
    return attempt.pause == nil ? "job '\(name)' is not paused" : nil
  }

  /// `is pending`, `is ready`, `is executing`, `has finished (succeeded)`.
  private func stateText(_ job: JobID) -> String {
    let state = engine.state(of: job)
    guard state == .finished else { return "is " + state.rawValue }
    return "has finished" + (engine.outcome(of: job).map { " (\($0.rawValue))" } ?? "")
  }

  private func unknownQueue(_ name: String) -> String {
    let names = graph.queues.map(\.name)
    let hint =
      Suggestion.closest(to: name, among: names).map(Suggestion.didYouMean) ?? "; queues: "
      + names.joined(
        separator: ", ")
    return "unknown queue '\(name)'" + hint
  }

  /// Digits only (no sign, no spaces), as `oprun ctl` checks N.
  static func wholeNumber(_ text: String) -> Int? {
    guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
      return nil
    }
    return Int(text)
  }
}
