import OprunCore

extension JobGraph {
  /// The name a report shows for `job`; an id the graph does not know (a producer's bug)
  /// is shown as `job#N` rather than stopping the report.
  func reportedName(job: JobID) -> String {
    jobs.indices.contains(job) ? jobs[job].name : "job#\(job)"
  }

  /// The name a report shows for `queue`, as ``reportedName(job:)`` does for jobs.
  func reportedName(queue: QueueID) -> String {
    queues.indices.contains(queue) ? queues[queue].name : "queue#\(queue)"
  }
}
