@testable import OprunCore

/// `--schedule critical-path` worked out independently of the engine, for property tests:
/// weights in whole milliseconds (exact sums), each job's remaining path straight from its
/// definition, and the ranks those give.
struct CriticalPathModel {
  /// Milliseconds, by job.
  var remainingPaths: [Int]
  /// Each job's place by remaining path (longest first), then by id.
  var ranks: [Int]

  /// `weights[job]` in milliseconds; nil is unknown, which weighs one second. Jobs must
  /// depend only on jobs with lower ids (as ``RandomScenario`` makes them), so that the
  /// dependents of a job are all done when the loop, going down the ids, reaches it.
  init(graph: JobGraph, weights: [Int?]) {
    var paths = weights.map { $0 ?? 1000 }
    for job in graph.jobs.indices.reversed() {
      precondition(graph.jobs[job].dependents.allSatisfy { $0 > job })
      paths[job] += graph.jobs[job].dependents.map { paths[$0] }.max() ?? 0
    }
    let order = graph.jobs.indices.sorted { (-paths[$0], $0) < (-paths[$1], $1) }
    var ranks = Array(repeating: 0, count: graph.jobs.count)
    for (rank, job) in order.enumerated() { ranks[job] = rank }
    remainingPaths = paths
    self.ranks = ranks
  }

  /// Random weights for `count` jobs: now and then unknown, often equal (so that ties,
  /// which manifest order breaks, are common).
  static func randomWeights(count: Int, random: inout SeededGenerator) -> [Int?] {
    (0..<count).map { _ in random.chance(0.2) ? nil : random.pick([0, 1, 250, 500, 1000, 1500, 4000]) }
  }
}
