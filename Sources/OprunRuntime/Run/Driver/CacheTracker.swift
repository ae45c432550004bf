import OprunCore

/// The driver's part that follows each cached job (SPEC §14) from its lookup to its store:
/// its key, the decision its lookup holds back, what it printed, what its restore saved.
///
/// Invariants: `waiting[job]` is set exactly while the job's lookup or restore is under way
/// (the engine has not been given its decision); `keys[job]` is set from its lookup on (a job
/// that runs is stored under the key it was looked up by); one warning per run.
struct CacheTracker {
  let cache: OutputCache
  private var keys: [String?]
  private var waiting: [RunDecision?]
  private var printed: [PrintedOutput?]
  private var saved: [Double?]
  private var hasWarned = false
  private(set) var hits = 0
  private(set) var misses = 0
  private(set) var stored = 0

  init(cache: OutputCache, jobs: Int) {
    self.cache = cache
    keys = Array(repeating: nil, count: jobs)
    waiting = Array(repeating: nil, count: jobs)
    printed = Array(repeating: nil, count: jobs)
    saved = Array(repeating: nil, count: jobs)
  }

  func key(of job: JobID) -> String? { keys[job] }

  /// The job's key is looked up, and `decision` waits for the answer.
  mutating func beginLookup(of job: JobID, key: String, decision: RunDecision) {
    keys[job] = key
    waiting[job] = decision
  }

  /// The job has a key but is not looked up (`--force`): it runs, and is stored.
  mutating func setKey(of job: JobID, _ key: String) { keys[job] = key }

  /// The decision held back for the job, while its lookup or restore is under way.
  func heldDecision(of job: JobID) -> RunDecision? { waiting[job] }

  /// The lookup came to a miss: the decision held back, now the engine's.
  mutating func missed(_ job: JobID) -> RunDecision? {
    guard let decision = waiting[job] else { return nil }
    waiting[job] = nil
    misses += 1
    return decision
  }

  /// Its outputs were restored; the run it stood for took `duration` seconds.
  mutating func restored(_ job: JobID, saving duration: Double) {
    waiting[job] = nil
    saved[job] = duration
    hits += 1
  }

  /// The job's attempt starts: what it prints from now on is what its entry keeps.
  mutating func beginAttempt(of job: JobID) {
    if keys[job] != nil { printed[job] = PrintedOutput() }
  }

  mutating func record(_ text: [UInt8], stream: OutputStream, of job: JobID) {
    printed[job]?.append(text, stream: stream)
  }

  /// What the job printed, taken for its entry.
  mutating func takePrinted(of job: JobID) -> PrintedOutput {
    defer { printed[job] = nil }
    return printed[job] ?? PrintedOutput()
  }

  mutating func noteStored() { stored += 1 }

  /// True the first time: the one warning a run gives of its cache.
  mutating func shouldWarn() -> Bool {
    defer { hasWarned = true }
    return !hasWarned
  }

  /// A restored job's `finished` transition says what it saved.
  func annotate(_ transition: inout Transition) {
    if transition.cached { transition.savedSeconds = saved[transition.job] }
  }
}
