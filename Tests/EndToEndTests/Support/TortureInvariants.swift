import Foundation

/// One broken promise of the SPEC, named by the invariant it breaks.
struct TortureViolation: CustomStringConvertible {
  /// `stream`, `one-finish`, `dependencies`, `queue-limit`, `suspension`, `outcome`, `policy`,
  /// `exit-status`, `completion`, `leftovers`, `termination`, and for the human output
  /// `output-torn` (a line mixed with another or attributed to the wrong job), `output-lost`
  /// (a line the job wrote missing or changed) and `output-late` (a line a job's leftover
  /// process wrote after the job finished, while the run went on, missing).
  var invariant: String
  var detail: String

  var description: String { "[\(invariant)] \(detail)" }
}

/// Judges a torture run against the SPEC's invariants (§2, §3.1, §3.2, §3.4, §3.5).
struct TortureInvariants {
  let run: TortureRun
  private var scenario: TortureScenario { run.scenario }
  private var log: EventLog { run.log }
  private(set) var violations: [TortureViolation] = []

  /// Each job's `finished` transition, by name.
  private let finishes: [String: [String: Any]]
  /// Where each job's `finished` transition stands in the stream.
  private let finishIndex: [String: Int]
  private let killed: Bool
  /// Whether oprun had to act on SIGINT or SIGTERM (it was sent while jobs were unfinished).
  private let cancelledBySignal: Bool

  init(_ run: TortureRun) {
    self.run = run
    var finishes: [String: [String: Any]] = [:]
    var finishIndex: [String: Int] = [:]
    for (index, event) in run.log.events.enumerated()
    where event.string("event") == "transition" && event.string("to") == "finished" {
      guard let job = event.string("job"), finishes[job] == nil else { continue }
      finishes[job] = event
      finishIndex[job] = index
    }
    self.finishes = finishes
    self.finishIndex = finishIndex
    killed = run.signalSent == SIGKILL
    cancelledBySignal = (run.signalSent == SIGINT || run.signalSent == SIGTERM) && run.signalMeetsRunningRun
    checkTermination()
    checkStream()
    checkDependencies()
    checkQueueLimits()
    checkSuspension()
    if !killed {
      checkOutcomes()
      checkPolicy()
      checkExitStatus()
      checkCompletions()
      checkOutput()
    }
  }

  private mutating func fail(_ invariant: String, _ detail: String) {
    violations.append(TortureViolation(invariant: invariant, detail: detail))
  }

  private mutating func checkTermination() {
    for problem in run.driveProblems { fail("termination", problem) }
    if !run.leftovers.isEmpty {
      let shown = run.leftovers.prefix(5).joined(separator: "; ")
      fail(
        "leftovers",
        "\(run.leftovers.count) processes of the run left \(TortureRun.leftoverLimit) s after oprun exited: \(shown)")
    }
  }

  /// `run-started` first, `run-finished` last, and exactly one `finished` per job (at most one
  /// when oprun was SIGKILLed).
  private mutating func checkStream() {
    if log.events.first?.string("event") != "run-started" {
      fail("stream", "the stream does not open with run-started")
    }
    if !killed && (log.last?.string("event") != "run-finished" || log.named("run-finished").count != 1) {
      fail("stream", "the stream does not end with one run-finished")
    }
    let counts = log.finishedCounts
    for job in scenario.jobs {
      let count = counts[job.name] ?? 0
      if count > 1 || (!killed && count != 1) { fail("one-finish", "\(job.name) finished \(count) times") }
    }
  }

  /// No job executes before each of its dependencies finished.
  private mutating func checkDependencies() {
    for (index, event) in log.events.enumerated()
    where event.string("event") == "transition" && event.string("to") == "executing" {
      guard let name = event.string("job"), let job = scenario.jobs.first(where: { $0.name == name }) else { continue }
      for dependency in job.dependencies.map({ scenario.jobs[$0].name }) {
        guard let finished = finishIndex[dependency], finished < index else {
          fail("dependencies", "\(name) executed (event \(index)) before its dependency \(dependency) finished")
          continue
        }
      }
    }
  }

  /// No queue ever has more jobs executing than its limit, and the run announces the limits it was given.
  private mutating func checkQueueLimits() {
    let announced = (log.named("run-started").first?["queues"] as? [String: Any] ?? [:]).compactMapValues {
      ($0 as? NSNumber)?.intValue
    }
    if !announced.isEmpty && announced != scenario.limits {
      fail("queue-limit", "run-started announced limits \(announced), expected \(scenario.limits)")
    }
    for (queue, most) in log.mostExecutingAtOnce.sorted(by: { $0.key < $1.key }) {
      let limit = scenario.limits[queue] ?? 0
      if most > limit { fail("queue-limit", "queue \(queue) had \(most) jobs executing at once, limit \(limit)") }
    }
  }

  /// Nothing starts on a queue between its `suspended` and `resumed` events.
  private mutating func checkSuspension() {
    var suspended: Set<String> = []
    for (index, event) in log.events.enumerated() {
      if event.string("event") == "queue", let queue = event.string("queue") {
        if event.string("state") == "suspended" { suspended.insert(queue) } else { suspended.remove(queue) }
      } else if event.string("event") == "transition", event.string("to") == "executing",
        let queue = event.string("queue"), suspended.contains(queue)
      {
        fail("suspension", "\(event.string("job") ?? "?") started on suspended queue \(queue) (event \(index))")
      }
    }
    // A run cancelled while suspended resumes its queues to drain (SPEC §3.4); otherwise only
    // the second SIGUSR1 resumes them, and the stream must say so.
    let cancelled = log.named("cancelled").contains {
      ["failure-policy", "interrupt", "terminate"].contains($0.string("reason") ?? "")
    }
    if run.signalSent == SIGUSR1 && run.finished.signal == nil && !suspended.isEmpty && !cancelled {
      fail("suspension", "queues \(suspended.sorted()) never resumed after the second SIGUSR1")
    }
  }

  /// Each job's outcome, attempts and cancellation reason agree with its commands, its
  /// `run-if`, the failure policy and the signal sent; with nothing to cancel anything, every
  /// outcome is exactly the one the graph implies.
  private mutating func checkOutcomes() {
    let deterministic = scenario.policy == "continue" && !cancelledBySignal
    var expected: [String: String] = [:]
    for job in scenario.jobs {
      let dependencyOutcomes = job.dependencies.map { finishes[scenario.jobs[$0].name]?.string("outcome") ?? "none" }
      if deterministic {
        let dependencyExpectations = job.dependencies.map { expected[scenario.jobs[$0].name] ?? "none" }
        expected[job.name] = Self.runIfAllows(job.runIf, dependencyExpectations) ? job.naturalOutcome : "skipped"
      }
      guard let finish = finishes[job.name], let outcome = finish.string("outcome") else { continue }
      // oprun may see the deadline pass before it reaps a command that exited just in time.
      let timedOutAtTheDeadline = outcome == "timed-out" && (job.timeout ?? 60) < 60
      if let want = expected[job.name], want != outcome, !timedOutAtTheDeadline {
        fail("outcome", "\(job.name) \(outcome), expected \(want) (nothing cancels in this run)")
      }
      checkAttempts(of: job, outcome: outcome, finish: finish)
      let reasons = log.named("cancelled", job: job.name).compactMap { $0.string("reason") }
      switch outcome {
      case "cancelled":
        // A job cancelled in the grace period after it timed out keeps both reasons.
        let allowed = allowedCancelReasons(before: finishIndex[job.name] ?? 0)
          .union(job.timeout == nil ? [] : ["timeout"])
        if !reasons.contains(where: { $0 != "timeout" }) || !reasons.allSatisfy(allowed.contains) {
          fail("outcome", "\(job.name) cancelled with reasons \(reasons), allowed \(allowed.sorted())")
        }
      case "skipped":
        if reasons != ["dependency-failed"] { fail("outcome", "\(job.name) skipped with reasons \(reasons)") }
        if Self.runIfAllows(job.runIf, dependencyOutcomes) {
          fail("outcome", "\(job.name) skipped though run-if \(job.runIf) allows \(dependencyOutcomes)")
        }
      default: break
      }
      if log.executed(job.name) && !Self.runIfAllows(job.runIf, dependencyOutcomes) {
        fail("outcome", "\(job.name) ran though run-if \(job.runIf) forbids \(dependencyOutcomes)")
      }
    }
  }

  /// Every attempt that ended on its own ended as its command says; the last decides the outcome.
  /// An attempt its time limit cut short, retried or not, did not end on its own: on a loaded
  /// machine a command that exits well within its limit may not have got that far.
  private mutating func checkAttempts(of job: TortureJob, outcome: String, finish: [String: Any]) {
    let transitions = log.named("transition", job: job.name)
    let attempts = transitions.filter { $0.string("to") == "executing" }.count
    if attempts > job.retries + 1 {
      fail("outcome", "\(job.name) ran \(attempts) attempts with retries \(job.retries)")
    }
    let cancels = timeLimitCancels(of: job)
    for (position, event) in transitions.enumerated() where event.string("to") == "executing" {
      guard position + 1 < transitions.count else { continue }
      let end = transitions[position + 1]
      let attempt = event.int("attempt") ?? 0
      let ending = job.ending(ofAttempt: attempt)
      let natural = end.string("to") == "ready" || ["succeeded", "failed"].contains(end.string("outcome") ?? "")
      guard natural, !Self.timedOut(cancels, from: event, to: end) else { continue }
      if end.string("to") == "ready" && ending == .success {
        fail("outcome", "\(job.name) attempt \(attempt) succeeded but was retried")
      }
      switch ending {
      case .success where end.string("to") == "finished" && end.string("outcome") != "succeeded",
        .exit where end.string("outcome") == "succeeded",
        .signal where end.string("outcome") == "succeeded":
        fail("outcome", "\(job.name) attempt \(attempt) \(end.string("outcome") ?? "?"), its command ends by \(ending)")
      case .exit(let code) where end.int("exit_code") != code:
        fail(
          "outcome",
          "\(job.name) attempt \(attempt) exit_code \(end.int("exit_code").map(String.init) ?? "null"), expected \(code)"
        )
      case .signal(let signal) where end.int("signal") != Int(signal):
        fail(
          "outcome",
          "\(job.name) attempt \(attempt) signal \(end.int("signal").map(String.init) ?? "null"), expected \(signal)")
      case .timeout where end.string("outcome") == "succeeded" || end.string("outcome") == "failed":
        fail("outcome", "\(job.name) attempt \(attempt) \(end.string("outcome") ?? "?") instead of timing out")
      default: break
      }
    }
    let last = job.ending(ofAttempt: max(1, attempts))
    switch outcome {
    case "succeeded", "failed", "timed-out":
      if attempts == 0 { fail("outcome", "\(job.name) \(outcome) without executing") }
      // Once the run stops (on-failure stop or cancel-all, a signal) no retry starts.
      let retriesRun = scenario.policy == "continue" && !cancelledBySignal
      if outcome != "succeeded" && retriesRun && attempts != job.retries + 1 {
        fail("outcome", "\(job.name) \(outcome) after \(attempts) attempts, retries \(job.retries)")
      }
      // oprun may see the deadline pass before it reaps a command that exited just in time.
      let timedOutAtTheDeadline = outcome == "timed-out" && job.timeout != nil
      if attempts > 0 && last.outcome != outcome && !timedOutAtTheDeadline {
        fail("outcome", "\(job.name) \(outcome), its last attempt ends by \(last)")
      }
    default: break
    }
  }

  /// The cancellation reasons this run can give a job that finished at stream position `index`.
  private func allowedCancelReasons(before index: Int) -> Set<String> {
    var allowed: Set<String> = []
    if cancelledBySignal { allowed.insert(run.signalSent == SIGINT ? "interrupt" : "terminate") }
    if scenario.policy != "continue", let failure = firstFailureIndex, failure < index {
      allowed.insert("failure-policy")
    }
    return allowed
  }

  /// Where the first job that failed or timed out finished.
  private var firstFailureIndex: Int? {
    log.index {
      $0.string("event") == "transition" && ["failed", "timed-out"].contains($0.string("outcome") ?? "")
    }
  }

  /// `stop` and `cancel-all` start nothing after the first failure; SIGINT and SIGTERM start
  /// nothing after they cancel the run.
  private mutating func checkPolicy() {
    var stops: [(Int, String)] = []
    if scenario.policy != "continue", let failure = firstFailureIndex {
      stops.append((failure, "the first failure under on-failure \(scenario.policy)"))
    }
    if let signalled = log.index(where: {
      $0.string("event") == "cancelled" && ["interrupt", "terminate"].contains($0.string("reason") ?? "")
    }) {
      stops.append((signalled, "the run was cancelled by a signal"))
    }
    let cleanups = Set(scenario.jobs.filter { $0.runIf != "success" }.map(\.name))
    for (number, (stop, why)) in stops.enumerated() {
      for (index, event) in log.events.enumerated().dropFirst(stop + 1)
      where event.string("event") == "transition" && event.string("to") == "executing" {
        // Under `stop`, jobs whose run-if is always or failure still start: they are the cleanup.
        if number == 0 && scenario.policy == "stop" && !why.contains("signal")
          && cleanups.contains(event.string("job") ?? "")
        {
          continue
        }
        fail("policy", "\(event.string("job") ?? "?") started (event \(index)) after \(why) (event \(stop))")
      }
    }
  }

  /// SPEC §3.4 and §3.5: ended by SIGINT or SIGTERM when cancelled by one (130 or 143 in the
  /// stream), else 1 when any job failed or was cancelled and 0 otherwise; the counts match.
  /// Whether oprun took the SIGINT or SIGTERM it was sent before its run ended. The signal
  /// goes out while jobs are unfinished, but a run draining fast (cancel-all) may finish
  /// before it arrives; then nothing shows it — no job cancelled for its reason, no ending
  /// by it announced — and the run ends as it would have without it.
  private func signalTaken(recorded: Int?) -> Bool {
    guard cancelledBySignal, let signal = run.signalSent else { return false }
    let reason = signal == SIGINT ? "interrupt" : "terminate"
    return run.finished.signal == signal || recorded == 128 + Int(signal)
      || log.named("cancelled").contains { $0.string("reason") == reason }
  }

  private mutating func checkExitStatus() {
    let outcomes = scenario.jobs.compactMap { finishes[$0.name]?.string("outcome") }
    let recorded = log.finishedExitCode
    if signalTaken(recorded: recorded) || (run.finished.signal != nil && run.finished.signal == run.signalSent) {
      let signal = run.signalSent ?? 0
      if run.finished.signal != signal {
        fail("exit-status", "oprun exited with status \(run.finished.status) after signal \(signal), not by the signal")
      }
      if recorded != 128 + Int(signal) {
        fail(
          "exit-status", "run-finished exit_code \(recorded.map(String.init) ?? "none"), expected \(128 + Int(signal))")
      }
    } else {
      let expected: Int32 = outcomes.contains { ["failed", "timed-out", "cancelled"].contains($0) } ? 1 : 0
      if run.finished.signal != nil || run.finished.status != expected {
        fail(
          "exit-status",
          "oprun exited \(run.finished.signal.map { "by signal \($0)" } ?? "\(run.finished.status)"), expected \(expected)"
        )
      }
      if recorded != Int(expected) {
        fail("exit-status", "run-finished exit_code \(recorded.map(String.init) ?? "none"), expected \(expected)")
      }
    }
    let counts = (log.named("run-finished").first?["counts"] as? [String: Any] ?? [:]).compactMapValues {
      ($0 as? NSNumber)?.intValue
    }.filter { $0.value > 0 }
    let tally = Dictionary(outcomes.map { ($0, 1) }, uniquingKeysWith: +)
    if counts != tally { fail("exit-status", "run-finished counts \(counts), the transitions say \(tally)") }
  }

  /// Completion commands run once for every job that has one, whatever its outcome.
  private mutating func checkCompletions() {
    for job in scenario.jobs where job.completion {
      let count = log.named("completion", job: job.name).count
      if count != 1 { fail("completion", "\(job.name)'s completion ran \(count) times") }
    }
  }

  /// When `job`'s time limit cancelled an attempt of it.
  private func timeLimitCancels(of job: TortureJob) -> [Double] {
    log.named("cancelled", job: job.name).filter { $0.string("reason") == "timeout" }.map { $0.double("t") ?? 0 }
  }

  /// Whether one of `cancels` came while the attempt that went to executing at `start` ran,
  /// before the transition `end` ended it (an empty `end`: it never ended).
  private static func timedOut(_ cancels: [Double], from start: [String: Any], to end: [String: Any]) -> Bool {
    let (started, ended) = (start.double("t") ?? 0, end.double("t") ?? .infinity)
    return cancels.contains { $0 >= started && $0 <= ended }
  }

  /// Every line each attempt wrote reaches the human output, attributed to its job; an attempt
  /// that was cancelled or timed out shows a prefix of its lines (its last line may be cut).
  private mutating func checkOutput() {
    let output = TortureOutput(
      text: run.finished.stdout, mode: scenario.outputMode, jobs: Set(scenario.jobs.map(\.name)))
    for problem in output.problems.prefix(10) { fail("output-torn", problem) }
    var expectedTags: Set<String> = []
    var cutJobs: Set<String> = []
    for job in scenario.jobs {
      let transitions = log.named("transition", job: job.name)
      let cancels = timeLimitCancels(of: job)
      for (position, event) in transitions.enumerated() where event.string("to") == "executing" {
        let attempt = event.int("attempt") ?? 0
        let end = position + 1 < transitions.count ? transitions[position + 1] : [:]
        // An attempt retried after its time limit was cut short, as a timed-out job is.
        let whole =
          !Self.timedOut(cancels, from: event, to: end)
          && (end.string("to") == "ready" || ["succeeded", "failed"].contains(end.string("outcome") ?? ""))
        if !whole { cutJobs.insert(job.name) }
        for command in 0..<job.commandCount {
          for stream: Character in ["o", "e", "t"] {
            let tag = job.tag(attempt: attempt, command: command, stream: stream)
            expectedTags.insert(tag)
            let expected = job.expectedLines(command: command, stream: stream)
            let seen = output.streams[tag] ?? []
            if stream == "t" {
              let marked = run.folder.exists(job.tailMarker(attempt: attempt, command: command))
              if !marked {
                if !seen.isEmpty && seen != expected {
                  fail("output-torn", "\(tag): \(seen.prefix(3)), expected at most \(expected)")
                }
                continue
              }
              if seen != expected {
                fail("output-late", "\(tag): the leftover wrote \(expected) while the run lasted, shown \(seen)")
              }
              continue
            }
            if let problem = Self.compare(seen, expected, whole: whole) { fail("output-lost", "\(tag): \(problem)") }
          }
        }
      }
    }
    for (job, line) in output.cutLines where job.map({ !cutJobs.contains($0) }) ?? cutJobs.isEmpty {
      fail("output-torn", "a line cut short though \(job ?? "no job") was not stopped: \(line.prefix(80))")
    }
    for tag in output.streams.keys.sorted() where !expectedTags.contains(tag) {
      fail("output-torn", "lines of \(tag), an attempt that never executed")
    }
  }

  /// Why `seen` is not `expected` (all of it when `whole`, else a prefix whose last line may be cut).
  private static func compare(_ seen: [String], _ expected: [String], whole: Bool) -> String? {
    if whole && seen == expected { return nil }
    for (index, line) in seen.enumerated() {
      guard index < expected.count else { return "\(seen.count) lines shown, \(expected.count) written" }
      if line != expected[index] && !(!whole && index == seen.count - 1 && expected[index].hasPrefix(line)) {
        return "line \(index + 1) is \"\(line.prefix(60))\", written \"\(expected[index].prefix(60))\""
      }
    }
    return whole
      ? "\(seen.count) of \(expected.count) lines shown (first missing: \"\(expected[seen.count].prefix(60))\")" : nil
  }

  /// Whether `run-if` lets a job whose dependencies ended so run (SPEC §3.1).
  static func runIfAllows(_ runIf: String, _ outcomes: [String]) -> Bool {
    switch runIf {
    case "always": true
    case "failure": outcomes.contains { $0 != "succeeded" }
    default: outcomes.allSatisfy { $0 == "succeeded" }
    }
  }
}
