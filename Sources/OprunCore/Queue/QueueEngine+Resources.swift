/// The budget (SPEC §12): a job that declares needs starts only when they fit in what
/// running jobs leave free. The ready job refused first (across queues refused at the same
/// moment, the earlier queue in the manifest) holds the reservation: any other job starts
/// only if it fits in what is free once the reserved job's needs are set aside, or — with
/// past durations — if it is expected to end before enough is released for the reserved job
/// to start (backfill, as Slurm's). A refused job steps out of its queue, keeping its band
/// and sequence, and goes back when enough is released for it to fit; jobs behind it in its
/// queue may start meanwhile.
extension QueueEngine {
  /// The run's budget; nil when the run schedules no resources (the engine was given no
  /// ``ResourcePlan``).
  public var resourceBudget: ResourceBudget? { budget }

  /// What `job`'s current attempt needs: its declared needs, its memory doubled after an
  /// attempt that ran out of it.
  public func needs(of job: JobID) -> ResourceNeeds {
    ledger?.needs[job] ?? graph.jobs[job].needs
  }

  /// What running jobs hold of the budget: (cpus, bytes of memory).
  public var resourcesInUse: (cpus: Int, memory: Int) {
    (ledger?.heldCPUs ?? 0, ledger?.heldMemory ?? 0)
  }

  /// The job holding the reservation, if one waits for resources.
  public var reservedJob: JobID? { ledger?.reserved }

  /// Changes the budget live (`oprun ctl budget`): raising it lets ``nextLaunch()`` start
  /// more now; lowering it stops nothing that runs. Emits `budget`. The caller refuses a
  /// budget some unfinished job could never fit in (``jobsBeyond(_:)``): every job must be
  /// able to start once the others have ended.
  public func setBudget(_ newBudget: ResourceBudget) {
    precondition(jobsBeyond(newBudget).isEmpty, "a budget some unfinished job could never fit in")
    budget = newBudget
    budgetWasLoweredBelowUse = !heldFitsBudget
    emit(.budget(cpus: newBudget.cpus, memory: newBudget.memory))
    unparkWhatFits()
  }

  /// The unfinished jobs whose needs `candidate` could never hold, in manifest order.
  public func jobsBeyond(_ candidate: ResourceBudget) -> [JobID] {
    guard let ledger else { return [] }
    return graph.jobs.indices.filter { job in
      phase[job] != .finished && !ResourceLedger.fits(ledger.needs[job], cpus: candidate.cpus, memory: candidate.memory)
    }
  }

  /// Whether `job`, reached by its queue with a free slot, must wait for resources; if so it
  /// steps out of its queue (and takes the reservation when none is held).
  func waitsForResources(_ job: JobID) -> Bool {
    guard let budget, ledger != nil, ledger!.needs[job].declaresAny else { return false }
    if mayStartNow(job, budget: budget) { return false }
    let now = clock()
    if !ledger!.isWaiting[job] {
      ledger!.isWaiting[job] = true
      ledger!.waitingSince[job] = now
      ledger!.waiting.append(job)
      let takesReservation = ledger!.reserved.map { reservationOrder(of: job) < reservationOrder(of: $0) } ?? true
      if takesReservation {
        let wasHeldByAnother = ledger!.reserved != nil
        ledger!.reserved = job
        // Refused for the old holder's sake, it may fit now that the reservation is its own;
        // parked, nothing would look at it again before a running job ends, and none may run.
        if wasHeldByAnother && mayStartNow(job, budget: budget) { return false }
      }
    }
    ledger!.isParked[job] = true
    return true
  }

  /// `job`'s needs fit in what is free, and it holds the reservation, or there is none, or
  /// it leaves the reserved job's share alone, or it is expected to be gone before that
  /// share is needed.
  private func mayStartNow(_ job: JobID, budget: ResourceBudget) -> Bool {
    let ledger = ledger!
    let need = ledger.needs[job]
    let freeCPUs = budget.cpus - ledger.heldCPUs
    let freeMemory = budget.memory - ledger.heldMemory
    guard ResourceLedger.fits(need, cpus: freeCPUs, memory: freeMemory) else { return false }
    guard let reserved = ledger.reserved, reserved != job else { return true }
    let set = ledger.needs[reserved]
    let leftCPUs = max(0, freeCPUs - (set.cpus ?? 0))
    let leftMemory = max(0, freeMemory - (set.memory ?? 0))
    if ResourceLedger.fits(need, cpus: leftCPUs, memory: leftMemory) { return true }
    guard let duration = ledger.expectedDurations[job], let shadow = reservedStartTime(budget: budget) else {
      return false
    }
    return clock() + duration <= shadow
  }

  /// When the reserved job is expected to fit: running jobs' expected ends (their start
  /// plus their past duration, now for one that is late), earliest first, until what they
  /// release and what is free hold its needs; nil when that takes a job of unknown duration.
  private func reservedStartTime(budget: ResourceBudget) -> Double? {
    guard let ledger, let reserved = ledger.reserved else { return nil }
    let need = ledger.needs[reserved]
    let now = clock()
    var ends: [(time: Double, job: JobID)] = []
    for holder in ledger.holders {
      guard let duration = ledger.expectedDurations[holder] else { continue }
      let start = phase[holder] == .executing ? executingSince[holder] : now
      ends.append((max(now, start + duration), holder))
    }
    ends.sort { $0.time < $1.time }
    var freeCPUs = budget.cpus - ledger.heldCPUs
    var freeMemory = budget.memory - ledger.heldMemory
    for end in ends {
      freeCPUs += ledger.needs[end.job].cpus ?? 0
      freeMemory += ledger.needs[end.job].memory ?? 0
      if ResourceLedger.fits(need, cpus: freeCPUs, memory: freeMemory) { return end.time }
    }
    return nil
  }

  /// Who holds the reservation among waiting jobs: the first refused, then the earlier
  /// queue in the manifest, then the queue's own order.
  func reservationOrder(of job: JobID) -> (Double, QueueID, Int) {
    (ledger!.waitingSince[job], queue(of: job), ReadyHeap.key(band: bands[job], sequence: sequences[job]))
  }

  /// `job` is launched: it holds its needs, and waits no more.
  func takeResources(_ job: JobID) {
    guard ledger != nil, ledger!.needs[job].declaresAny else { return }
    let need = ledger!.needs[job]
    ledger!.heldCPUs += need.cpus ?? 0
    ledger!.heldMemory += need.memory ?? 0
    ledger!.holders.append(job)
    stopWaitingForResources(job)
  }

  /// `job`'s attempt has ended: what it held is free, and the waiting jobs that now fit go
  /// back to their queues.
  func releaseResources(_ job: JobID) {
    guard ledger != nil, let index = ledger!.holders.firstIndex(of: job) else { return }
    ledger!.holders.swapAt(index, ledger!.holders.count - 1)
    ledger!.holders.removeLast()
    let need = ledger!.needs[job]
    ledger!.heldCPUs -= need.cpus ?? 0
    ledger!.heldMemory -= need.memory ?? 0
    if budgetWasLoweredBelowUse, heldFitsBudget { budgetWasLoweredBelowUse = false }
    unparkWhatFits()
  }

  private var heldFitsBudget: Bool {
    guard let budget, let ledger else { return true }
    return ledger.heldCPUs <= budget.cpus && ledger.heldMemory <= budget.memory
  }

  /// Waiting jobs whose needs fit in what is free go back to their queues; the reservation
  /// decides there which of them start.
  private func unparkWhatFits() {
    guard let budget, ledger != nil else { return }
    let freeCPUs = budget.cpus - ledger!.heldCPUs
    let freeMemory = budget.memory - ledger!.heldMemory
    for job in ledger!.waiting
    where ledger!.isParked[job] && ResourceLedger.fits(ledger!.needs[job], cpus: freeCPUs, memory: freeMemory) {
      ledger!.isParked[job] = false
      enqueue(job)
    }
  }

  /// Takes `job` out of the jobs waiting for resources (it starts, or finishes without
  /// starting); the next one in ``reservationOrder(of:)`` takes the reservation if it held it.
  func stopWaitingForResources(_ job: JobID) {
    guard ledger != nil, ledger!.isWaiting[job] else { return }
    ledger!.isWaiting[job] = false
    ledger!.isParked[job] = false
    if let index = ledger!.waiting.firstIndex(of: job) { ledger!.waiting.remove(at: index) }
    guard ledger!.reserved == job else { return }
    ledger!.reserved = ledger!.waiting.min { reservationOrder(of: $0) < reservationOrder(of: $1) }
    // Jobs refused for the old reservation's sake may fit now: nothing else would look at
    // them again before a running job ends, and there may be none.
    unparkWhatFits()
  }

  /// Puts a parked job back in its queue (it was cancelled or re-prioritised); true when it
  /// was parked, and so in no queue's heap: the caller puts it back.
  func unparkForSteering(_ job: JobID) -> Bool {
    guard ledger != nil, ledger!.isParked[job] else { return false }
    ledger!.isParked[job] = false
    return true
  }

  /// After an attempt that ran out of memory, the next one needs twice as much, never more
  /// than the budget; the new need, nil when it has none to double.
  func doubleMemory(of job: JobID) -> Int? {
    guard let budget, ledger != nil, let memory = ledger!.needs[job].memory else { return nil }
    let doubled = min(budget.memory, memory.multipliedReportingOverflow(by: 2).overflow ? Int.max : memory * 2)
    ledger!.needs[job].memory = doubled
    return doubled
  }
}
