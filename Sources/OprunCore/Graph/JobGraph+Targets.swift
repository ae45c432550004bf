/// A job named on the command line that the manifest does not have.
public struct TargetError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The name as given.
  public var name: String
  /// The closest job name, when one is close enough to be a likely typo.
  public var suggestion: String?
  /// For a bracketed name of a matrix job: the instances it has (`its instances are …`).
  public var instances: String?
  /// When no name is close: the jobs there are (`the jobs are a, b and 30 more`).
  public var jobListing: String?

  public init(name: String, suggestion: String?, instances: String? = nil, jobListing: String? = nil) {
    self.name = name
    self.suggestion = suggestion
    self.instances = instances
    self.jobListing = jobListing
  }

  /// What is wrong with the name, without the listing of the jobs there are (which a message
  /// about several names gives once).
  public var problem: String {
    if let instances, let template = MatrixExpansion.templateName(of: name) {
      return "unknown job '\(name)': job '\(template)' has no such instance; \(instances)"
    }
    return "unknown job '\(name)'" + (suggestion.map(Suggestion.didYouMean) ?? "")
  }

  public var description: String { problem + (jobListing.map { "; " + $0 } ?? "") }
}

extension JobGraph {
  /// The graph of the jobs called `names` and everything they depend on, transitively
  /// (barrier edges included), as `oprun jobs.yaml JOB...` runs it.
  ///
  /// Ids are made dense again in manifest order; dependents outside the selection are
  /// dropped; every queue stays, with its id. The `manifest` is kept as read. The first
  /// unknown name throws, with the closest job name as a suggestion. A matrix job's plain
  /// name selects every instance.
  public func restricted(to names: [String]) throws(TargetError) -> JobGraph {
    let index = JobNameIndex(self)
    var selected = Array(repeating: false, count: jobs.count)
    var stack: [JobID] = []
    for name in names {
      guard let ids = index.jobs(named: name) else {
        throw index.unknownName(name)
      }
      stack += ids
    }
    while let job = stack.popLast() {
      guard !selected[job] else { continue }
      selected[job] = true
      stack.append(contentsOf: jobs[job].dependencies.lazy.filter { !selected[$0] })
    }
    return keeping(selected)
  }

  /// The jobs where `selected` is true, re-indexed; `selected` must be closed under dependencies.
  private func keeping(_ selected: [Bool]) -> JobGraph {
    var newID = Array(repeating: -1, count: jobs.count)
    var next = 0
    for job in jobs.indices where selected[job] {
      newID[job] = next
      next += 1
    }
    var kept: [JobNode] = []
    kept.reserveCapacity(next)
    for var job in jobs where selected[job.id] {
      job.id = newID[job.id]
      job.dependencies = job.dependencies.map { newID[$0] }
      job.dependents = job.dependents.compactMap { newID[$0] >= 0 ? newID[$0] : nil }
      kept.append(job)
    }
    var graph = JobGraph(manifest: manifest, queues: queues, jobs: kept)
    graph.manifestWarnings = manifestWarnings
    graph.trackedJobsLeftOut = trackedJobsLeftOut.union(
      jobs.lazy.filter { !selected[$0.id] && $0.tracksFiles }.map(\.name))
    return graph
  }
}
