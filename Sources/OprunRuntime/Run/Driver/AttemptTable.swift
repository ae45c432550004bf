import OprunCore

/// What a run has running, by job: the attempts and completion commands the driver started
/// on a backend and has not yet seen end, and the launches waiting for resources.
///
/// Invariants: `running[job]` is set exactly while some command of the job's current attempt
/// has started and not exited (its `remaining` is above 0). Both tables hold only what runs,
/// not a slot for every job: a run of 100,000 jobs at `-j 8` keeps 8 entries. Every lookup and
/// update is O(1) and in place: nothing here is copied per event, so a job costs the same in a
/// run of any size.
struct AttemptTable {
  private var running: [JobID: RunningAttempt] = [:]
  var runningCount: Int { running.count }
  /// Completion commands that have started and not exited, by job.
  private var completions: [JobID: CommandHandle] = [:]
  var completionCount: Int { completions.count }
  /// Launches whose start ran short of something the run's own commands give back as they
  /// end (descriptors, processes), in order; each holds its slot meanwhile.
  private var waitingForResources: [Launch] = []
  /// Something of the run ended since the waiting launches were last tried.
  private var somethingEnded = false

  /// The job's executing attempt.
  subscript(job: JobID) -> RunningAttempt? { running[job] }

  /// Some command or completion of the run is running, and will give back what it holds.
  /// Jobs with an attempt running now, in job order; linear in the jobs.
  var runningJobs: [JobID] { running.keys.sorted() }

  var isRunningAnything: Bool { runningCount > 0 || completionCount > 0 }

  mutating func began(_ attempt: RunningAttempt, of job: JobID) {
    precondition(attempt.remaining > 0, "an attempt is running only while a command of it is")
    running[job] = attempt
  }

  /// Changes the job's executing attempt in place; nothing when it has none.
  mutating func update(_ job: JobID, _ change: (inout RunningAttempt) -> Void) {
    guard running[job] != nil else { return }
    change(&running[job]!)
  }

  /// One command of `job`'s attempt `number` exited, having used `usage`. The first command
  /// that does not succeed decides how the attempt ended; what the commands used adds up
  /// (``ResourceUsage/combined(with:)``); once its last command has exited, the attempt is
  /// removed and returned.
  mutating func commandExited(
    _ job: JobID, attempt number: Int, _ termination: Termination, using usage: ResourceUsage? = nil
  ) -> RunningAttempt? {
    guard running[job]?.attempt == number else { return nil }
    running[job]!.remaining -= 1
    if running[job]!.termination.isSuccess && !termination.isSuccess { running[job]!.termination = termination }
    running[job]!.usage = running[job]!.usage.combined(with: usage)
    if let limit = usage?.outOfMemoryLimit { running[job]!.outOfMemoryLimit = limit }
    guard running[job]!.remaining == 0 else { return nil }
    return running.removeValue(forKey: job)
  }

  mutating func completionStarted(_ job: JobID, _ handle: CommandHandle) {
    completions[job] = handle
  }

  mutating func completionExited(_ job: JobID) {
    completions[job] = nil
  }

  /// A command or completion of the run exited: what it held is given back.
  mutating func noteSomethingEnded() {
    somethingEnded = !waitingForResources.isEmpty
  }

  /// `launch` waits, holding its slot, until something of the run ends.
  mutating func wait(_ launch: Launch) {
    waitingForResources.append(launch)
  }

  /// The launches to try again now that something of the run ended since they waited; none
  /// while nothing has.
  mutating func launchesToRetry() -> [Launch] {
    guard somethingEnded else { return [] }
    somethingEnded = false
    defer { waitingForResources = [] }
    return waitingForResources
  }

  /// Every running attempt's time limit stops at `now` (the run was stopped, Ctrl-Z), what
  /// each had left kept; returns the timers to cancel. An attempt paused on its own keeps its
  /// own stopped clock.
  mutating func stopTimeLimits(at now: Double) -> [TimerID] {
    var timers: [TimerID] = []
    for job in running.keys.sorted() where running[job]!.timeoutTimer != nil && running[job]!.pause == nil {
      if let timer = running[job]!.stopTimeLimit(at: now) { timers.append(timer) }
    }
    return timers
  }

  /// The attempts whose time limits the run's stop stopped, with the time each had left; their
  /// limits are to be set again, now that the run goes on.
  mutating func timeLimitsToRestart() -> [(job: JobID, attempt: Int, timeLeft: Double)] {
    var restarts: [(job: JobID, attempt: Int, timeLeft: Double)] = []
    for job in running.keys.sorted() {
      guard let timeLeft = running[job]?.timeLeftWhileStopped else { continue }
      running[job]!.timeLeftWhileStopped = nil
      restarts.append((job, running[job]!.attempt, timeLeft))
    }
    return restarts
  }

  /// The commands of every paused attempt: what stopping everything (Ctrl-Z) leaves alone, so
  /// that continuing everything (`fg`) does not continue a job the user paused.
  var pausedHandles: [CommandHandle] {
    running.keys.sorted().flatMap { job in running[job]!.pause != nil ? running[job]!.handles : [] }
  }
}

/// The commands of one executing attempt.
struct RunningAttempt {
  /// 1-based.
  var attempt: Int
  /// One per command that started, in the order of `commands`.
  var handles: [CommandHandle] = []
  /// Started commands that have not exited yet.
  var remaining = 0
  /// The first command that did not succeed decides; `.exited(0)` while all did.
  var termination: Termination = .exited(0)
  /// What its exited commands used, together; nil while none has reported any.
  var usage: ResourceUsage?
  var timeoutTimer: TimerID?
  /// When the time limit falls due, on the clock, while its timer is set.
  var timeoutDeadline: Double?
  /// The signals sent for cancellations, each once; the first one set the kill's time.
  var signalsSent: [JobSignal] = []
  /// Set while the attempt is paused (`oprun ctl pause`); its timer is not set meanwhile.
  var pause: Pause?
  /// Set while the whole run is stopped (Ctrl-Z): the seconds its time limit had left, its
  /// timer not set meanwhile.
  var timeLeftWhileStopped: Double?
  /// The attempt passed this memory limit (bytes) and the kernel killed a process of it
  /// (SPEC §12): if it failed, it failed out of memory, and a retry needs twice the memory.
  /// Set from what the backend measured.
  var outOfMemoryLimit: Int?

  struct Pause {
    /// Seconds the time limit had left when the attempt was paused; nil without a limit.
    var timeLeft: Double?
  }

  /// Pauses the attempt at `now`: its time limit stops, what it had left kept (with what a
  /// stop of the whole run had kept). Returns the timer to cancel, if one was set.
  mutating func pause(at now: Double) -> TimerID? {
    let timer = timeoutTimer
    let timeLeft = timeoutDeadline.map { max(0, $0 - now) } ?? timeLeftWhileStopped
    timeoutTimer = nil
    timeoutDeadline = nil
    timeLeftWhileStopped = nil
    pause = Pause(timeLeft: timeLeft)
    return timer
  }

  /// The whole run stops at `now`: the time limit stops, what it had left kept. Returns the
  /// timer to cancel.
  mutating func stopTimeLimit(at now: Double) -> TimerID? {
    guard let timer = timeoutTimer, let deadline = timeoutDeadline else { return nil }
    timeoutTimer = nil
    timeoutDeadline = nil
    timeLeftWhileStopped = max(0, deadline - now)
    return timer
  }
}
