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
      return TargetError(name: name, suggestion: nil, jobListing: "the jobs are " + Self.listing(of: names))
    }
    return TargetError(name: name, suggestion: suggestion)
  }

  /// How many names an unknown name's message lists before `and N more`.
  static let jobsListed = 20

  /// The names a user can give, in manifest order: a matrix job's plain name once, for its instances.
  private static func listing(of names: [String]) -> String {
    var seen = Set<String>()
    let plain = names.lazy.map { MatrixExpansion.templateName(of: $0) ?? $0 }.filter { seen.insert($0).inserted }
    return Listing.bounded(Array(plain), limit: jobsListed)
  }
}
