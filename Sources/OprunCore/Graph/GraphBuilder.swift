/// Builds a ``JobGraph``'s queues and jobs from a ``Manifest``, collecting every problem.
struct GraphBuilder {
  /// A suggestion costs an edit distance against every name; past this many different
  /// searches, none are made.
  static let suggestionBudget = 100

  let manifest: Manifest
  let defaultMaxConcurrent: Int
  var diagnostics: DiagnosticCollector
  private var queueIDs: [String: QueueID] = [:]
  private var jobIDs: [String: JobID] = [:]
  /// Each queue's `resources`, by QueueID.
  private var queueResources: [ResourceSpec] = []
  /// Each search made, by what it looked for: a name written wrong by 30,000 jobs is looked up
  /// once (it was a search per job among 30,000 queues, a second and a half of `oprun check`).
  private var suggestionsMade: [SuggestionSearch: String?] = [:]
  /// Every matrix job's instances by its name, made at the first unknown bracketed dependency.
  private var instancesByTemplate: [String: [String]]?
  /// `; the queues are 'a' and 'b'` after an unknown queue, when there are few enough to list.
  private let queueListing: String
  static let queuesListed = 20

  init(manifest: Manifest, defaultMaxConcurrent: Int, diagnostics: DiagnosticCollector = DiagnosticCollector()) {
    self.manifest = manifest
    self.diagnostics = diagnostics
    self.defaultMaxConcurrent = max(1, defaultMaxConcurrent)
    let known = [manifest.name] + manifest.queues.prefix(Self.queuesListed).map(\.name)
    queueListing =
      manifest.queues.count < Self.queuesListed
      ? "; the queues are \(Listing.words(known, quoted: true, conjunction: "and"))" : ""
  }

  mutating func build() -> (queues: [QueueNode], jobs: [JobNode]) {
    let queues = resolveQueues()
    indexJobs()
    var jobs = resolveJobs(queues: queues)
    fillDependents(&jobs)
    reportCycles(jobs)
    checkFilePaths(jobs)
    return (queues, jobs)
  }

  /// The main queue, then `queues`; a name used twice is reported.
  private mutating func resolveQueues() -> [QueueNode] {
    var queues = [QueueNode(name: manifest.name, maxConcurrent: manifest.maxConcurrent?.value ?? defaultMaxConcurrent)]
    queueIDs = [manifest.name: 0]
    queueResources = [ResourceSpec()]
    for spec in manifest.queues {
      guard queueIDs[spec.name] == nil else {
        let clash = spec.name == manifest.name ? "the main queue's name" : "already used by another queue"
        diagnostics.append(Diagnostic(at: spec.location, "queue name '\(spec.name)' is \(clash)"))
        continue
      }
      queueIDs[spec.name] = queues.count
      let limit = max(1, spec.maxConcurrent?.value ?? defaultMaxConcurrent)
      queues.append(QueueNode(name: spec.name, maxConcurrent: limit, qos: spec.qos))
      queueResources.append(spec.resources)
    }
    return queues
  }

  private mutating func indexJobs() {
    jobIDs.reserveCapacity(manifest.jobs.count)
    for (id, job) in manifest.jobs.enumerated() where jobIDs.updateValue(id, forKey: job.name) != nil {
      diagnostics.append(Diagnostic(at: job.location, "duplicate job '\(job.name)'"))
    }
  }

  // Maps the pass: jobs in manifest order, each resolving its queue and dependencies, while
  // every queue remembers its last barrier and the jobs listed since, so barrier edges are
  // added in the same pass. `lastAdded[dependency] == id` deduplicates in O(1).
  private mutating func resolveJobs(queues: [QueueNode]) -> [JobNode] {
    var barriers = [BarrierState](repeating: BarrierState(), count: queues.count)
    var lastAdded = [JobID](repeating: -1, count: manifest.jobs.count)
    var jobs: [JobNode] = []
    jobs.reserveCapacity(manifest.jobs.count)
    for (id, spec) in manifest.jobs.enumerated() {
      let queue = resolveQueue(of: spec)
      var dependencies: [JobID] = []
      dependencies.reserveCapacity(spec.dependencies.count)
      func add(_ dependency: JobID) {
        guard lastAdded[dependency] != id else { return }
        lastAdded[dependency] = id
        dependencies.append(dependency)
      }
      for name in spec.dependencies {
        if let dependency = resolveDependency(name, of: spec, id: id) { add(dependency) }
      }
      barriers[queue].addEdges(to: id, isBarrier: spec.barrier, add)
      let job = node(
        id: id, spec: spec, queue: queue, qos: queues[queue].qos, resources: queueResources[queue],
        dependencies: dependencies)
      checkExecSize(of: job)
      if job.needs.declaresAny { diagnostics += job.needsBeyond(manifest.budget.amounts, budgetNamed: "the budget") }
      jobs.append(job)
    }
    return jobs
  }

  private mutating func resolveQueue(of spec: JobSpec) -> QueueID {
    guard let name = spec.queue else { return 0 }
    if let queue = queueIDs[name.value] { return queue }
    let hint = suggestion(for: .queue(name.value), among: queueNames) ?? queueListing
    diagnostics.append(Diagnostic(at: name.location, "unknown queue '\(name.value)' of job '\(spec.name)'\(hint)"))
    return 0
  }

  /// The main queue's name, then the others', without copying them.
  private var queueNames: some Sequence<String> {
    (0...manifest.queues.count).lazy.map { [manifest] in $0 == 0 ? manifest.name : manifest.queues[$0 - 1].name }
  }

  private mutating func resolveDependency(_ name: Located<String>, of spec: JobSpec, id: JobID) -> JobID? {
    guard let dependency = jobIDs[name.value] else {
      if let template = MatrixExpansion.templateName(of: name.value), let instances = instances(of: template) {
        let message =
          "unknown dependency '\(name.value)' of job '\(spec.name)': job '\(template)' has no such instance; "
          + MatrixExpansion.listing(instances: instances)
        diagnostics.append(Diagnostic(at: name.location, message))
        return nil
      }
      let hint = suggestion(for: .job(name.value), among: manifest.jobs.lazy.map(\.name)) ?? ""
      diagnostics.append(
        Diagnostic(at: name.location, "unknown dependency '\(name.value)' of job '\(spec.name)'\(hint)"))
      return nil
    }
    guard dependency != id else {
      diagnostics.append(Diagnostic(at: name.location, "job '\(spec.name)' depends on itself"))
      return nil
    }
    return dependency
  }

  /// The instances of the matrix job called `template`, if there is one.
  private mutating func instances(of template: String) -> [String]? {
    if instancesByTemplate == nil {
      var instances: [String: [String]] = [:]
      for job in manifest.jobs {
        if let instance = job.instance { instances[instance.template, default: []].append(job.name) }
      }
      instancesByTemplate = instances
    }
    return instancesByTemplate?[template]
  }

  /// Reports a job whose largest command, with its environment, passes the part of
  /// `ARG_MAX` a manifest may use (``ExecLimits/manifestBudget``).
  private mutating func checkExecSize(of job: JobNode) {
    let commands = job.commands + (job.completion.map { [$0] } ?? [])
    let largest = commands.lazy.map { ExecLimits.cost(ofCommand: $0, environment: job.env) }.max() ?? 0
    guard largest > ExecLimits.manifestBudget else { return }
    let message =
      "job '\(job.name)' passes \(ExecLimits.describe(bytes: largest)) of command and environment to /bin/sh; "
      + "at most \(ExecLimits.describe(bytes: ExecLimits.manifestBudget)) is allowed (half the kernel's 2 MiB ARG_MAX)"
    diagnostics.append(Diagnostic(at: job.location, message))
  }

  /// A name looked for among the queues' or among the jobs'.
  private enum SuggestionSearch: Hashable {
    case queue(String)
    case job(String)

    var name: String {
      switch self {
      case .queue(let name), .job(let name): name
      }
    }
  }

  private mutating func suggestion(for search: SuggestionSearch, among candidates: some Sequence<String>) -> String? {
    if let made = suggestionsMade[search] { return made }
    guard suggestionsMade.count < Self.suggestionBudget else { return nil }
    let made = Suggestion.closest(to: search.name, among: candidates).map(Suggestion.didYouMean)
    suggestionsMade[search] = made
    return made
  }

  /// `dependents` in manifest order: appending while walking jobs in order keeps them sorted.
  private func fillDependents(_ jobs: inout [JobNode]) {
    for id in jobs.indices {
      for dependency in jobs[id].dependencies { jobs[dependency].dependents.append(id) }
    }
  }

  private mutating func reportCycles(_ jobs: [JobNode]) {
    let found = DependencyCycles(dependencies: jobs.map { $0.dependencies }, dependents: jobs.map { $0.dependents })
      .find()
    for cycle in found.cycles {
      let path = (cycle.jobs + [cycle.jobs[0]]).map { jobs[$0].name }.joined(separator: " -> ")
      diagnostics.append(Diagnostic(at: jobs[cycle.jobs[0]].location, "dependency cycle: \(path)"))
    }
    for job in found.unlisted {
      let message = "job '\(jobs[job].name)' is part of further dependency cycles (not all are listed)"
      diagnostics.append(Diagnostic(at: jobs[job].location, message))
    }
  }
}

/// What one queue knows of barriers while jobs are visited in manifest order.
struct BarrierState {
  var lastBarrier: JobID?
  var listedSinceBarrier: [JobID] = []

  /// Adds the edges a barrier implies for `job`: a barrier waits for the jobs listed since
  /// the previous barrier and for that barrier; any other job waits for the last barrier.
  mutating func addEdges(to job: JobID, isBarrier: Bool, _ add: (JobID) -> Void) {
    if isBarrier {
      listedSinceBarrier.forEach(add)
      lastBarrier.map(add)
      lastBarrier = job
      listedSinceBarrier.removeAll(keepingCapacity: true)
    } else {
      lastBarrier.map(add)
      listedSinceBarrier.append(job)
    }
  }
}
