import OprunCore

extension JobGraph {
  /// The name a person is shown for `job` (the timeline, summaries, the plan): the job's
  /// name with what a terminal would act on escaped (``DisplayText``). An id the graph does
  /// not know (a producer's bug) is shown as `job#N` rather than stopping the report.
  func reportedName(job: JobID) -> String {
    DisplayText.escaped(recordedName(job: job))
  }

  /// The name a person is shown for `queue`, as ``reportedName(job:)`` does for jobs.
  func reportedName(queue: QueueID) -> String {
    DisplayText.escaped(recordedName(queue: queue))
  }

  /// The job's real name, for machine-readable output (JSON escapes it itself).
  func recordedName(job: JobID) -> String {
    jobs.indices.contains(job) ? jobs[job].name : "job#\(job)"
  }

  /// The queue's real name, for machine-readable output.
  func recordedName(queue: QueueID) -> String {
    queues.indices.contains(queue) ? queues[queue].name : "queue#\(queue)"
  }
}
