import OprunCore

/// The driver's part for a backend handed the whole run up front: which attempt of each job
/// the cluster was handed, and which jobs wait to be handed to it.
///
/// A job is submitted with the cluster's ids of its dependencies' attempts, and the cluster
/// starts it after those: so it must name each dependency's last attempt. A job with
/// `retries` may need another attempt, a new submission, once its first has failed; its
/// dependents therefore wait until its last attempt is known — the one submitted with no
/// retry left, or the job has finished (it succeeded, or the run retries it no more) — and a
/// job that waits makes its own dependents wait too. Everything else is submitted before the
/// run begins.
///
/// Invariants: `submitted[job]` is the attempt last handed to the cluster, 0 while none was
/// (it only grows); `waiting[job]` holds from the hand-over until the job is submitted, or its
/// submission was refused, or it finished without one.
struct ClusterSubmissions {
  /// Each job's `retries`.
  private let retries: [Int]
  /// Each job's dependencies that run in this run (those `--resume` resumes do not).
  private var dependencies: [[JobID]]
  private var submitted: [Int]
  private var waiting: [Bool]

  init(_ graph: JobGraph) {
    retries = graph.jobs.map(\.retries)
    dependencies = graph.jobs.map(\.dependencies)
    submitted = Array(repeating: 0, count: graph.jobs.count)
    waiting = Array(repeating: false, count: graph.jobs.count)
  }

  /// Of `plan` (every job after its dependencies), the jobs to submit before the run begins;
  /// the others wait.
  mutating func upFront(_ plan: [PlannedJob]) -> [PlannedJob] {
    var now: [PlannedJob] = []
    for planned in plan {
      let job = planned.job.id
      dependencies[job] = planned.dependencies
      if planned.dependencies.allSatisfy({ !waiting[$0] && retries[$0] == 0 }) {
        now.append(planned)
      } else {
        waiting[job] = true
      }
    }
    return now
  }

  /// The cluster was handed attempt `attempt` of `job`.
  mutating func submitted(_ job: JobID, attempt: Int) {
    submitted[job] = max(submitted[job], attempt)
    waiting[job] = false
  }

  /// `job` waits no more: its submission was refused, or it finished without one.
  mutating func stopWaiting(_ job: JobID) {
    waiting[job] = false
  }

  func isWaiting(_ job: JobID) -> Bool { waiting[job] }

  /// The attempt of `job` last handed to the cluster; 0 while none was.
  func lastSubmittedAttempt(of job: JobID) -> Int { submitted[job] }

  /// Whether the cluster has, or will never get, the last attempt of `job`: it was handed the
  /// attempt with no retry left, or the job has `finished`.
  func lastAttemptIsKnown(of job: JobID, finished: (JobID) -> Bool) -> Bool {
    submitted[job] > retries[job] || finished(job)
  }

  /// Whether `job` waits and every one of its dependencies' last attempts is now known.
  func mayBeSubmitted(_ job: JobID, finished: (JobID) -> Bool) -> Bool {
    waiting[job] && dependencies[job].allSatisfy { lastAttemptIsKnown(of: $0, finished: finished) }
  }
}
