import OprunCore

/// Where the HTML report (`oprun report`) draws a recorded run: every attempt of every job a
/// bar on a lane of its queue, and the run's critical path.
///
/// Lanes are handed out as the trace writer does (``LanePool``): an attempt takes its queue's
/// lowest lane free at its start, so bars on one lane never overlap. Rows number the lanes of
/// every queue one after the other, the queues in the run's order.
struct ReportLayout {
  /// One attempt of one job.
  struct Bar: Equatable {
    /// Index in the run's `jobs`.
    var job: Int
    var attempt: Int
    var row: Int
    var start: Double
    /// The attempt's end, or the end of the stream for one still running when it was cut off.
    var end: Double
    /// The attempt had not ended when the stream did.
    var isOpen: Bool
    /// The job's outcome for its last attempt, `retried` for one run again, `running` for
    /// one the stream left running.
    var state: String
    var exitCode: Int?
    var signal: Int?
  }

  /// Each queue's rows, in the run's order of queues (`firstRow ..< firstRow + lanes`).
  var queueRows: [(firstRow: Int, lanes: Int)] = []
  /// Ordered by row, then start.
  var bars: [Bar] = []
  var rowCount = 0
  /// Job indices from the first job of the chain to the one that finished last, each made
  /// ready by the one before (`after`).
  var criticalPath: [Int] = []

  init(_ run: RecordedRun) {
    var barsByQueue = Array(repeating: [Bar](), count: run.queues.count)
    let queueIndex = Dictionary(run.queues.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    for (index, job) in run.jobs.enumerated() {
      guard let queue = queueIndex[job.queue] else { continue }
      for (number, attempt) in job.attempts.enumerated() {
        barsByQueue[queue].append(Self.bar(of: job, index: index, attempt: attempt, number: number, runEnd: run.end))
      }
    }
    for queueBars in barsByQueue {
      let (placed, lanes) = Self.placeOnLanes(queueBars, firstRow: rowCount)
      queueRows.append((rowCount, lanes))
      bars += placed
      rowCount += lanes
    }
    criticalPath = Self.criticalPath(of: run)
  }

  private static func bar(
    of job: RecordedRun.Job, index: Int, attempt: RecordedRun.Attempt, number: Int, runEnd: Double
  ) -> Bar {
    let isLast = number == job.attempts.count - 1
    let state: String
    if attempt.end == nil {
      state = "running"
    } else if isLast, let outcome = job.outcome {
      state = outcome.rawValue
    } else {
      state = "retried"
    }
    return Bar(
      job: index, attempt: attempt.number, row: 0, start: attempt.start, end: max(attempt.end ?? runEnd, attempt.start),
      isOpen: attempt.end == nil, state: state, exitCode: attempt.exitCode, signal: attempt.signal)
  }

  /// Gives each bar the lowest lane free at its start; returns them ordered by row, then
  /// start, and how many lanes were needed.
  private static func placeOnLanes(_ bars: [Bar], firstRow: Int) -> ([Bar], Int) {
    var pool = LanePool()
    var running: [(end: Double, lane: Int)] = []
    var placed = bars.sorted { ($0.start, $0.job, $0.attempt) < ($1.start, $1.job, $1.attempt) }
    for index in placed.indices {
      let start = placed[index].start
      running.removeAll { bar in
        guard bar.end <= start else { return false }
        pool.release(bar.lane)
        return true
      }
      let lane = pool.acquire()
      running.append((placed[index].end, lane))
      placed[index].row = firstRow + lane
    }
    placed.sort { ($0.row, $0.start) < ($1.row, $1.start) }
    return (placed, pool.peak)
  }

  /// From the job that finished last (or, in a stream cut off before any finished, the one
  /// that ran last), back along `after`.
  private static func criticalPath(of run: RecordedRun) -> [Int] {
    let index = Dictionary(run.jobs.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    func end(_ job: RecordedRun.Job) -> Double? {
      job.finished ?? job.attempts.last.map { $0.end ?? run.end }
    }
    var last: (job: Int, end: Double)?
    for (position, job) in run.jobs.enumerated() {
      guard let time = end(job) else { continue }
      if last == nil || time >= last!.end { last = (position, time) }
    }
    guard var current = last?.job else { return [] }
    var path = [current]
    var seen: Set<Int> = [current]
    while let name = run.jobs[current].after, let previous = index[name], seen.insert(previous).inserted {
      path.append(previous)
      current = previous
    }
    return path.reversed()
  }
}
