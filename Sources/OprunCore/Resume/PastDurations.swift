/// How long each job took when it executed, over a manifest's journals: what
/// `--schedule critical-path` weighs jobs by (SPEC §5, §9).
///
/// Only attempts that executed are measurements: a record that succeeded, failed or timed
/// out (a time-out is a failure, SPEC §3.5, and a job that ran into its limit is likely to
/// run that long again) and was neither resumed nor up to date. A cancelled job was cut short
/// by someone else, a skipped one never ran, and the duration of 0 of a resumed or an
/// up-to-date one says nothing about the job.
public struct PastDurations: Sendable {
  /// Seconds, by job name, in the order they were added.
  private var samples: [String: [Double]] = [:]

  public init() {}

  /// Adds the measurements among `journal`'s records.
  public mutating func add(_ journal: Journal) {
    for record in journal.records { add(record) }
  }

  /// Adds `record`'s duration when it is a measurement.
  public mutating func add(_ record: JournalRecord) {
    guard Self.measures(record) else { return }
    samples[record.job, default: []].append(record.duration)
  }

  static func measures(_ record: JournalRecord) -> Bool {
    guard !record.resumed, !record.upToDate, !record.cached, record.duration >= 0, record.duration.isFinite else {
      return false
    }
    switch record.outcome {
    case .succeeded, .failed, .timedOut: return true
    case .cancelled, .skipped: return false
    }
  }

  /// How many measurements of `job` there are.
  public func count(of job: String) -> Int {
    samples[job]?.count ?? 0
  }

  /// The median of `job`'s measurements (the mean of the middle two of an even number);
  /// nil when there is none. A median, not a mean: one run slowed by a cold cache or a
  /// busy machine does not move it.
  public func median(of job: String) -> Double? {
    guard let values = samples[job]?.sorted(), !values.isEmpty else { return nil }
    let middle = values.count / 2
    return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
  }

  /// Each job's median, by ``JobID``: what ``CriticalPath/init(graph:durations:)`` takes.
  public func durations(of graph: JobGraph) -> [Double?] {
    graph.jobs.map { median(of: $0.name) }
  }
}
