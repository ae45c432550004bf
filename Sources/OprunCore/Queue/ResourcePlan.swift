/// What a run schedules jobs' needs against (SPEC §12): its budget, and what past runs
/// say of how long each job takes, for backfill.
public struct ResourcePlan: Sendable, Equatable {
  /// What the run may use at once: `--budget`, else the manifest's, else the machine's.
  public var budget: ResourceBudget
  /// Seconds each job took before (``PastDurations``), by ``JobID``; nil where unknown,
  /// and empty when no journal says anything: then nothing is backfilled.
  public var pastDurations: [Double?]

  public init(budget: ResourceBudget, pastDurations: [Double?] = []) {
    self.budget = budget
    self.pastDurations = pastDurations
  }
}

/// What running jobs hold of the budget, and which ready jobs wait for it; only made when
/// some job declares what it needs, so that a run without resources pays nothing per job.
///
/// Invariant: `held` is the sum of `needs` over `holders`; a job is in `waiting` exactly
/// when `isWaiting` says so, and `isParked` only while it waits; `reserved` is the waiting
/// job with the smallest ``QueueEngine/reservationOrder(of:)``, nil when none waits.
struct ResourceLedger {
  /// What each job's current attempt needs: as declared, its memory doubled after an
  /// attempt that ran out of it.
  var needs: [ResourceNeeds]
  /// Seconds each job is expected to take; nil where unknown.
  var expectedDurations: [Double?]
  /// Sums of the needs of `holders`.
  var heldCPUs = 0
  var heldMemory = 0
  /// Jobs launched or executing that declare needs, in no particular order.
  var holders: [JobID] = []
  /// Ready jobs a queue could start but the budget refused, until they start or finish.
  var waiting: [JobID] = []
  var isWaiting: [Bool]
  /// The run's clock when the job was first refused; meaningful while it waits.
  var waitingSince: [Double]
  /// Out of its queue's heap until enough is released for it to fit.
  var isParked: [Bool]
  /// The job that holds the reservation: what is free, and what is released, goes to it.
  var reserved: JobID?

  init(graph: JobGraph, pastDurations: [Double?]) {
    let count = graph.jobs.count
    needs = graph.jobs.map(\.needs)
    expectedDurations = pastDurations.count == count ? pastDurations : Array(repeating: nil, count: count)
    isWaiting = Array(repeating: false, count: count)
    waitingSince = Array(repeating: 0, count: count)
    isParked = Array(repeating: false, count: count)
  }

  /// Whether `need` fits in `cpus` and `memory`, each counted on its own.
  static func fits(_ need: ResourceNeeds, cpus: Int, memory: Int) -> Bool {
    (need.cpus ?? 0) <= cpus && (need.memory ?? 0) <= memory
  }
}
