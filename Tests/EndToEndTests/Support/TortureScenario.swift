import Foundation

/// How one attempt of a torture job's first command ends.
enum TortureEnding: Equatable, CustomStringConvertible {
  case success
  case exit(Int)
  /// The command sends itself this signal (`kill -SEGV $$`): a signal oprun did not send.
  case signal(Int32)
  /// The command sleeps far past the job's timeout.
  case timeout

  /// The outcome a job whose last attempt ended so has (SPEC §3.5).
  var outcome: String {
    switch self {
    case .success: "succeeded"
    case .exit, .signal: "failed"
    case .timeout: "timed-out"
    }
  }

  var description: String {
    switch self {
    case .success: "success"
    case .exit(let code): "exit \(code)"
    case .signal(let signal): "signal \(signal)"
    case .timeout: "timeout"
    }
  }
}

/// One generated job: what its commands print and how they end.
struct TortureJob {
  var name: String
  /// Nil for the manifest's main queue.
  var queue: String?
  /// Indices of earlier jobs.
  var dependencies: [Int]
  var runIf: String
  var retries: Int
  /// In seconds; set on every job whose ending is `.timeout`, and on some others as a limit never reached.
  var timeout: Double?
  var ending: TortureEnding
  /// The first this many attempts exit 3 whatever `ending` says (a flaky job, for `retries`).
  var failingAttempts: Int
  var ignoresTerm: Bool
  var sleep: Double
  /// Lines written one `echo` at a time.
  var lines: Int
  /// Lines written by `seq` through a 4 KiB buffer (a write may end mid-line).
  var bulkLines: Int
  var errorLines: Int
  /// A last stdout line with no newline.
  var partialLine: Bool
  /// A grandchild that writes one line 0.2 s after the command's last line, holding the pipe open.
  var tail: Bool
  /// A grandchild that outlives the job by a minute (`server &`), its output elsewhere: the
  /// run's end must take it with it.
  var daemon: Bool
  var completion: Bool
  var commandCount: Int
  var priority: String?

  /// How attempt `attempt` (from 1) ends.
  func ending(ofAttempt attempt: Int) -> TortureEnding {
    attempt <= failingAttempts ? .exit(3) : ending
  }

  /// The outcome the job has when nothing cancels it: attempts run until one succeeds or
  /// every retry is spent.
  var naturalOutcome: String {
    let last = (1...(retries + 1)).first { ending(ofAttempt: $0) == .success } ?? retries + 1
    return ending(ofAttempt: last).outcome
  }

  /// The tag that starts every line `command` of `attempt` writes on `stream` (`o`, `e`, `t`).
  func tag(attempt: Int, command: Int, stream: Character) -> String {
    "@\(name)/a\(attempt)/c\(command)/\(stream)"
  }

  /// What `command` of an attempt writes on `stream`, each line without its tag and line end;
  /// the `t` stream is the grandchild's, written only when its marker file exists.
  func expectedLines(command: Int, stream: Character) -> [String] {
    switch stream {
    case "o":
      (0..<lines).map { "e\($0 + 1)" } + (0..<bulkLines).map { "\($0 + 1)" } + (partialLine ? ["partial"] : [])
    case "e": (0..<errorLines).map { "e\($0 + 1)" }
    default: tail ? ["tail"] : []
    }
  }

  /// The marker file the grandchild of `command` in `attempt` creates once its line is written.
  func tailMarker(attempt: Int, command: Int) -> String { "tails/\(name).a\(attempt).c\(command)" }

  /// The shell text of `command` (0 carries the ending; the others succeed).
  func script(command: Int) -> String {
    var parts = ["T=@\(name)/a$OPRUN_ATTEMPT/c\(command)"]
    if ignoresTerm { parts.append("trap '' TERM") }
    parts += (0..<lines).map { "echo $T/o:e\($0 + 1)" }
    if bulkLines > 0 { parts.append("seq -f $T/o:%g 1 \(bulkLines)") }
    parts += (0..<errorLines).map { "echo $T/e:e\($0 + 1) >&2" }
    if sleep > 0 { parts.append("sleep \(sleep)") }
    if tail {
      parts.append("(sleep 0.2; echo $T/t:tail; : > tails/\(name).a$OPRUN_ATTEMPT.c\(command)) &")
    }
    if daemon { parts.append("sleep 60 > /dev/null 2>&1 &") }
    if partialLine { parts.append("printf %s $T/o:partial") }
    guard command == 0 else { return parts.joined(separator: "\n") }
    if failingAttempts > 0 { parts.append("[ \"$OPRUN_ATTEMPT\" -gt \(failingAttempts) ] || exit 3") }
    switch ending {
    case .success: break
    case .exit(let code): parts.append("exit \(code)")
    case .signal(let signal): parts.append("kill -\(signal == SIGKILL ? "KILL" : "SEGV") $$")
    case .timeout: parts.append("sleep 60")
    }
    return parts.joined(separator: "\n")
  }
}

/// What the test does to oprun while it runs, after reading the `afterTransitions`-th
/// transition of the event stream.
enum TortureAction: Equatable, CustomStringConvertible {
  case nothing
  case interrupt(afterTransitions: Int)
  case terminate(afterTransitions: Int)
  /// SIGUSR1, then (once every queue is suspended and nothing executes) SIGUSR1 again.
  case suspendAndResume(afterTransitions: Int)
  case kill(afterTransitions: Int)

  var afterTransitions: Int? {
    switch self {
    case .nothing: nil
    case .interrupt(let k), .terminate(let k), .suspendAndResume(let k), .kill(let k): k
    }
  }

  var description: String {
    switch self {
    case .nothing: "nothing"
    case .interrupt(let k): "SIGINT after transition \(k)"
    case .terminate(let k): "SIGTERM after transition \(k)"
    case .suspendAndResume(let k): "SIGUSR1 twice after transition \(k)"
    case .kill(let k): "SIGKILL after transition \(k)"
    }
  }
}

/// One seed's run: a random job graph, its manifest and oprun's flags, and what the test does meanwhile.
struct TortureScenario {
  let seed: UInt64
  var jobs: [TortureJob] = []
  /// Extra queues and their limits, in manifest order.
  var queues: [(name: String, limit: Int)] = []
  var mainLimit = 1
  /// `-j N` when set: it overrides every queue's limit.
  var jobsFlag: Int?
  var policy = "stop"
  /// Whether the policy is given by a flag (`-k`, `--fail-fast`) rather than the manifest.
  var policyByFlag = false
  var outputMode = "prefixed"
  var action = TortureAction.nothing
  /// The value of `TORTURE_RUN` in the manifest's `env`: every process of the run carries it.
  let token = UUID().uuidString
  static let grace = 0.3

  init(seed: UInt64) {
    self.seed = seed
    var random = SplitMix64(seed: seed)
    mainLimit = random.int(in: 1...8)
    queues = (0..<random.int(in: 0...2)).map { (name: "q\($0 + 1)", limit: random.int(in: 1...4)) }
    jobsFlag = random.chance(0.3) ? random.pick([(1, 1), (2, 2), (4, 2), (16, 2), (100, 1)]) : nil
    policy = random.pick([("continue", 2), ("stop", 1), ("cancel-all", 1)])
    policyByFlag = policy != "stop" && random.chance(0.5)
    outputMode = random.pick([("prefixed", 1), ("grouped", 1), ("raw", 1)])
    let count = random.int(in: 120...320)
    jobs = (0..<count).map { Self.job($0, queues: queues, random: &random) }
    let moment = random.int(in: 1...(2 * count))
    action = random.pick([
      (.nothing, 3), (.interrupt(afterTransitions: moment), 2), (.terminate(afterTransitions: moment), 2),
      (.suspendAndResume(afterTransitions: moment), 2), (.kill(afterTransitions: moment), 2),
    ])
  }

  private static func job(_ index: Int, queues: [(name: String, limit: Int)], random: inout SplitMix64) -> TortureJob {
    let dependencyCount = index == 0 ? 0 : random.pick([(0, 3), (1, 4), (2, 2), (3, 1)])
    let window = max(0, index - 40)..<index
    let dependencies = Set((0..<dependencyCount).map { _ in random.int(in: window.lowerBound...(index - 1)) }).sorted()
    let ending: TortureEnding = random.pick([
      (.success, 30), (.exit(random.int(in: 1...120)), 3), (.signal(SIGSEGV), 1), (.signal(SIGKILL), 1),
      (.timeout, 1),
    ])
    let bulk = random.chance(0.08)
    let tail = random.chance(0.1)
    let retries = random.chance(0.15) ? random.int(in: 1...2) : 0
    return TortureJob(
      name: String(format: "j%03d", index),
      queue: queues.isEmpty || random.chance(0.6) ? nil : queues[random.int(in: 0...(queues.count - 1))].name,
      dependencies: dependencies,
      runIf: dependencies.isEmpty ? "success" : random.pick([("success", 6), ("always", 2), ("failure", 2)]),
      retries: retries,
      timeout: ending == .timeout
        ? Double(random.int(in: 2...5)) / 10 : (random.chance(0.1) ? 60 : nil),
      ending: ending,
      failingAttempts: random.chance(0.1) ? random.int(in: 1...2) : 0,
      ignoresTerm: random.chance(0.08),
      sleep: random.chance(0.2) ? Double(random.int(in: 1...20)) / 100 : 0,
      lines: random.pick([(0, 3), (1, 3), (random.int(in: 2...8), 3)]),
      bulkLines: bulk ? random.int(in: 1_000...30_000) : 0,
      errorLines: random.chance(0.2) ? random.int(in: 1...3) : 0,
      partialLine: !tail && random.chance(0.1),
      tail: tail,
      daemon: random.chance(0.03),
      completion: random.chance(0.1),
      commandCount: random.chance(0.1) ? 2 : 1,
      priority: random.chance(0.2) ? random.pick([("low", 1), ("high", 1), ("veryHigh", 1)]) : nil
    )
  }

  /// Every queue's limit as the run must apply it.
  var limits: [String: Int] {
    var limits = ["main": jobsFlag ?? mainLimit]
    for queue in queues { limits[queue.name] = jobsFlag ?? queue.limit }
    return limits
  }

  var manifest: String {
    var text = "name: main\nmax-concurrent: \(mainLimit)\n"
    if !policyByFlag { text += "on-failure: \(policy)\n" }
    text += "env: {TORTURE_RUN: \(token)}\n"
    if !queues.isEmpty {
      text += "queues:\n" + queues.map { "  \($0.name): {max-concurrent: \($0.limit)}\n" }.joined()
    }
    text += "jobs:\n"
    for job in jobs {
      var keys: [String] = []
      if job.commandCount == 1 {
        keys.append("command: \(Self.quoted(job.script(command: 0)))")
      } else {
        keys.append(
          "commands: [\((0..<job.commandCount).map { Self.quoted(job.script(command: $0)) }.joined(separator: ", "))]")
      }
      if !job.dependencies.isEmpty {
        keys.append("dependencies: [\(job.dependencies.map { jobs[$0].name }.joined(separator: ", "))]")
      }
      if job.runIf != "success" { keys.append("run-if: \(job.runIf)") }
      if let queue = job.queue { keys.append("queue: \(queue)") }
      if job.retries > 0 { keys.append("retries: \(job.retries)") }
      if let timeout = job.timeout { keys.append("timeout: \(timeout)s") }
      if job.completion { keys.append("completion: \"true\"") }
      if let priority = job.priority { keys.append("priority: \(priority)") }
      text += "  \(job.name): {\(keys.joined(separator: ", "))}\n"
    }
    return text
  }

  var arguments: [String] {
    var arguments = runArguments(["--output", outputMode, "--grace", "\(Self.grace)"])
    if let jobsFlag { arguments += ["-j", "\(jobsFlag)"] }
    if policyByFlag { arguments.append(policy == "continue" ? "-k" : "--fail-fast") }
    // The invariants read the jobs' lines from standard output. Their copies in the events
    // file (400,000 lines for a noisy seed) only cost the suite minutes of parsing: one seed
    // in ten keeps them, so that writing them under signals stays tried.
    if seed % 10 != 0 { arguments += ["--events-output", "none"] }
    return arguments
  }

  /// The seed's settings in one line, for failure messages.
  var summary: String {
    "seed \(seed): \(jobs.count) jobs, -j \(jobsFlag.map(String.init) ?? "none") (main \(mainLimit)), "
      + "\(queues.count) extra queues, on-failure \(policy)\(policyByFlag ? " (flag)" : ""), "
      + "--output \(outputMode), \(action)"
  }

  /// A YAML double-quoted scalar (a script's lines joined by `\n`: `&` cannot be followed by `;`).
  private static func quoted(_ text: String) -> String {
    let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    return "\"" + escaped.replacingOccurrences(of: "\n", with: "\\n") + "\""
  }
}
