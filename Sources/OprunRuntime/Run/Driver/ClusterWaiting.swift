import OprunCore

/// The driver's part for a backend handed the whole run up front (a cluster): which launched
/// jobs it has not yet seen begin or end, and what it reported about jobs the engine had not
/// launched yet.
///
/// The engine still decides every transition: a job becomes ready when its dependencies
/// have finished (as observed); its launch marks it as awaited — it holds its slot, and
/// nothing is started — and the backend's ``BackendReport/began(_:_:)`` makes it executing.
/// Invariants: `awaited[job]` is the attempt launched and not yet seen begin or end;
/// `early[job]` holds, in order, the reports about a job that is neither awaited, running
/// nor finished, and is emptied when the job is launched.
struct ClusterWaiting {
  let scheduler: any SchedulingBackend
  private var awaited: [Int?]
  private var early: [[BackendReport]]

  /// A part for `backend` when it takes the whole run (a ``SchedulingBackend``); nil otherwise.
  init?(backend: any JobBackend, jobs: Int) {
    guard backend.capabilities.takesWholeRun, let scheduler = backend as? any SchedulingBackend else { return nil }
    self.scheduler = scheduler
    awaited = Array(repeating: nil, count: jobs)
    early = Array(repeating: [], count: jobs)
  }

  /// The attempt of `job` launched and not yet seen begin or end.
  func awaitedAttempt(of job: JobID) -> Int? { awaited[job] }

  /// The engine launched `launch`: it is awaited; what the backend already reported about it
  /// is handed back, to be taken now.
  mutating func launched(_ launch: Launch) -> [BackendReport] {
    awaited[launch.job] = launch.attempt
    defer { early[launch.job] = [] }
    return early[launch.job]
  }

  /// The backend saw attempt `number` of `job` begin or end before running: it is awaited no
  /// more. False when that attempt was not the one awaited.
  mutating func settle(_ job: JobID, attempt number: Int) -> Bool {
    guard awaited[job] == number else { return false }
    awaited[job] = nil
    return true
  }

  /// Keeps `report` until its job is launched, when it is about a job the engine has not
  /// launched yet (`isUnlaunched`); true if kept.
  mutating func keep(_ report: BackendReport, isUnlaunched: (JobID) -> Bool) -> Bool {
    guard let work = report.work, case .attempt = work.purpose, awaited[work.job] == nil, isUnlaunched(work.job)
    else { return false }
    early[work.job].append(report)
    return true
  }
}

extension BackendReport {
  /// The work the report is about.
  var work: WorkKey? {
    switch self {
    case .output(let work, _, _), .exited(let work, _, _, _), .began(let work, _), .endedUnstarted(let work, _): work
    }
  }
}
