extension JobGraph {
  /// Validates a decoded manifest and builds its graph.
  ///
  /// Resolves queue and dependency names (unknown ones are reported with a suggestion),
  /// applies `defaults`, turns barriers into edges, fills `dependents`, and reports
  /// self-dependencies and every dependency cycle with its path. Linear in jobs plus edges,
  /// without recursion, so a chain of 100,000 jobs is fine.
  ///
  /// - Parameter defaultMaxConcurrent: the limit of a queue whose manifest sets none
  ///   (at least 1 is used).
  /// - Throws: every problem found, in reading order.
  public init(manifest: Manifest, defaultMaxConcurrent: Int) throws(ManifestErrors) {
    var diagnostics = DiagnosticCollector()
    guard let graph = Self.build(manifest, defaultMaxConcurrent: defaultMaxConcurrent, reportingTo: &diagnostics) else {
      throw diagnostics.errors()
    }
    self = graph
  }

  /// The graph of `manifest`, or nil after adding its problems to `diagnostics` (which
  /// may hold earlier ones: then the graph is nil too, once this stage's are added).
  static func build(
    _ manifest: Manifest, defaultMaxConcurrent: Int, reportingTo diagnostics: inout DiagnosticCollector
  ) -> JobGraph? {
    let manifest = MatrixExpansion.expand(manifest, reportingTo: &diagnostics)
    var builder = GraphBuilder(manifest: manifest, defaultMaxConcurrent: defaultMaxConcurrent, diagnostics: diagnostics)
    let (queues, jobs) = builder.build()
    diagnostics = builder.diagnostics
    guard !diagnostics.containsErrors else { return nil }
    var graph = JobGraph(manifest: manifest, queues: queues, jobs: jobs)
    if !diagnostics.isEmpty { graph.manifestWarnings = diagnostics.errors().diagnostics }
    graph.checkInvariants()
    return graph
  }

  /// In debug builds, traps if the documented invariants do not hold.
  func checkInvariants() {
    #if DEBUG
      for (id, job) in jobs.enumerated() {
        assert(job.id == id, "job ids are manifest indices")
        assert(queues.indices.contains(job.queue), "every job has a queue")
        assert(job.dependencies.allSatisfy { jobs.indices.contains($0) && $0 != id }, "dependencies are other jobs")
        assert(Set(job.dependencies).count == job.dependencies.count, "no duplicate dependencies")
      }
      assert(queues.allSatisfy { $0.maxConcurrent >= 1 }, "every queue runs something")
    #endif
  }
}
