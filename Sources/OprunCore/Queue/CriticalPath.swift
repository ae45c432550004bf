/// `--schedule critical-path` for one graph: each job's weight, the longest path that remains
/// from it, and the order among equals in priority that they give (SPEC §5).
///
/// A job's *remaining path* is its own weight plus the longest remaining path among its
/// dependents: how long the run must still go on once the job starts, however many slots
/// there are. Starting the job with the longest one first is the classic list-scheduling
/// rule (HLFET) that shortens a run's makespan. Ties fall back to manifest order, so the
/// order is total.
///
/// Weights are seconds, counted in whole microseconds so that paths of equal weights add up
/// to exactly equal lengths whatever the order of the additions (a tie stays a tie, and
/// manifest order decides it, never a rounding error).
public struct CriticalPath: Sendable, Equatable {
  /// The weight of a job with no known duration: one second, the unit of the known ones.
  public static let unknownWeight = 1.0

  /// Whether each job's weight came from a known duration; by ``JobID``.
  public let isKnown: [Bool]
  /// Each job's place when every job is sorted by remaining path, longest first, then by
  /// manifest order: a permutation of the job ids. The ready heaps take it as a job's
  /// sequence, so that one integer comparison after the band is the whole tie-break.
  public let ranks: [Int]

  /// By ``JobID``; see ``weight(of:)`` and ``remainingPath(of:)``.
  private let weightMicroseconds: [Int]
  private let pathMicroseconds: [Int]

  /// Seconds `job` is expected to take: its known duration, else ``unknownWeight``.
  public func weight(of job: JobID) -> Double {
    Self.seconds(weightMicroseconds[job])
  }

  /// Seconds from `job`'s start to the end of the longest path of dependents below it, its
  /// own weight included.
  public func remainingPath(of job: JobID) -> Double {
    Self.seconds(pathMicroseconds[job])
  }

  /// The critical path of `graph` where job `id` takes `durations[id]` seconds, or is of
  /// unknown duration where that is nil. A negative or not finite duration counts as unknown.
  public init(graph: JobGraph, durations: [Double?]) {
    precondition(durations.count == graph.jobs.count, "one duration (or nil) per job")
    let known = durations.map { $0.map { $0 >= 0 && $0.isFinite } ?? false }
    let weights = durations.indices.map { job in
      Self.microseconds(known[job] ? durations[job]! : Self.unknownWeight)
    }
    isKnown = known
    weightMicroseconds = weights
    pathMicroseconds = Self.remainingPaths(of: graph, weights: weights)
    ranks = Self.ranks(byLongest: pathMicroseconds)
  }

  /// Every job's remaining path, computed once per job from the last job of each path back
  /// to the first (reverse topological order): a loop, so that a chain of 100,000 jobs takes
  /// no more stack than one job.
  private static func remainingPaths(of graph: JobGraph, weights: [Int]) -> [Int] {
    var paths = weights
    for job in graph.topologicalOrder().reversed() {
      var longestBelow = 0
      for dependent in graph.jobs[job].dependents { longestBelow = max(longestBelow, paths[dependent]) }
      paths[job] = saturatingSum(weights[job], longestBelow)
    }
    return paths
  }

  /// Each job's place in the order longest path first, then lowest id.
  private static func ranks(byLongest paths: [Int]) -> [Int] {
    let order = paths.indices.sorted { a, b in paths[a] != paths[b] ? paths[a] > paths[b] : a < b }
    var ranks = [Int](repeating: 0, count: paths.count)
    for (rank, job) in order.enumerated() { ranks[job] = rank }
    return ranks
  }

  /// Longer than any run: a duration beyond it (a hand-edited journal) still converts to
  /// an `Int`; sums beyond `Int.max` stay there (``saturatingSum(_:_:)``).
  private static let longestWeight = 1e9

  private static func microseconds(_ seconds: Double) -> Int {
    Int((min(seconds, longestWeight) * 1e6).rounded())
  }

  private static func seconds(_ microseconds: Int) -> Double {
    Double(microseconds) / 1e6
  }

  private static func saturatingSum(_ a: Int, _ b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? .max : sum
  }
}
