/// What a job's name means wherever a user names jobs — targets on the command line,
/// `oprun ctl`, `oprun graph` (SPEC §11): a job's own name, or a matrix job's plain name,
/// which means every one of its instances.
public struct JobNameIndex: Sendable {
  private var ids: [String: JobID] = [:]
  /// A matrix job's instances, in manifest order.
  private var instances: [String: [JobID]] = [:]
  private let names: [String]

  public init(_ graph: JobGraph) {
    ids.reserveCapacity(graph.jobs.count)
    for job in graph.jobs {
      ids[job.name] = job.id
      if let instance = job.instance { instances[instance.template, default: []].append(job.id) }
    }
    names = graph.jobs.map(\.name)
  }

  /// The job called `name`, or every instance of the matrix job called `name`; nil when
  /// there is neither.
  public func jobs(named name: String) -> [JobID]? {
    if let id = ids[name] { return [id] }
    return instances[name]
  }

  /// Why `name` names no job, as a user can act on it: the closest name, or, for a
  /// bracketed name of a matrix job, the instances it has, or else the jobs there are.
  public func unknownName(_ name: String) -> TargetError {
    if let template = MatrixExpansion.templateName(of: name), let ids = instances[template] {
      return TargetError(
        name: name, suggestion: nil, instances: MatrixExpansion.listing(instances: ids.map { names[$0] }))
    }
    let candidates = names + instances.keys
    guard let suggestion = Suggestion.closest(to: name, among: candidates) else {
      let listing = Listing.bounded(givenNames(instances: false), limit: Self.jobsListed)
      return TargetError(name: name, suggestion: nil, jobListing: "the jobs are " + listing)
    }
    return TargetError(name: name, suggestion: suggestion)
  }

  /// How many names an unknown name's message lists before `and N more`.
  static let jobsListed = 20

  /// The names a user can give, in manifest order: each job's own name, and a matrix job's
  /// plain name just before its first instance (with `instances` false, in their place).
  public func givenNames(instances withInstances: Bool) -> [String] {
    var given: [String] = []
    for name in names {
      if let template = MatrixExpansion.templateName(of: name), let ids = instances[template] {
        if names[ids[0]] == name { given.append(template) }
        if !withInstances { continue }
      }
      given.append(name)
    }
    return given
  }
}
