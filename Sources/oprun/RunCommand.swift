import ArgumentParser
import OprunCore
import OprunRuntime

/// `oprun [options] [MANIFEST] [JOB...]`: run a manifest's jobs.
struct Run: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run MANIFEST's jobs (the default command).",
    usage: "oprun [options] [MANIFEST] [JOB...]",
    discussion: """
      As make takes targets, the manifest may be left out before JOBs: a first word that names \
      no file (and does not end in .yaml or .yml) is a JOB of ./jobs.yaml, so `oprun build test` \
      runs build and test of ./jobs.yaml.
      """
  )

  @Argument(
    help: ArgumentHelp("The manifest (default: ./jobs.yaml).", valueName: "MANIFEST"),
    completion: .file(extensions: ["yaml", "yml"]))
  var manifest: String?

  @Argument(
    help: ArgumentHelp("Run only these jobs and their dependencies.", valueName: "JOB"),
    completion: .custom(JobCompletion.candidates))
  var jobs: [String] = []

  // Unconditional, so that `-j -1` is a value to refuse rather than a missing one.
  @Option(
    name: [.customShort("j", allowingJoined: true), .long], parsing: .unconditional,
    help: ArgumentHelp("Override max-concurrent of every queue.", valueName: "N"))
  var maxConcurrent: Int?

  @Flag(name: [.customShort("k"), .long], help: "Keep going after a failure (on-failure: continue).")
  var keepGoing = false

  @Flag(help: "Cancel running jobs too after a failure (on-failure: cancel-all).")
  var failFast = false

  @Flag(
    name: [.customShort("n"), .long], help: "Print the order a serial run would start the jobs, and why; run nothing.")
  var dryRun = false

  @Option(
    help: ArgumentHelp(
      "Job output: prefixed (each line as 'job | text'), grouped (one block per job), raw.", valueName: "MODE"))
  var output: RunConfiguration.OutputMode = .prefixed

  @Option(
    help: ArgumentHelp("Write the NDJSON event stream to PATH ('-' for standard output).", valueName: "PATH"),
    completion: .file())
  var events: String?

  @Option(
    help: ArgumentHelp(
      "What of the jobs' output the event stream carries: all (an output line for each line a job prints) or none.",
      valueName: "WHICH"))
  var eventsOutput: EventsOutput?

  @Option(
    help: ArgumentHelp("Write a Chrome trace-event JSON of the run to PATH.", valueName: "PATH"), completion: .file())
  var trace: String?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Seconds between a cancelling signal and SIGKILL.", valueName: "SECONDS"))
  var grace: Double = 5

  @Flag(
    name: [.customShort("q"), .long],
    help: "Print only failures and the summary (and what the jobs write, as make -s does).")
  var quiet = false

  @Flag(name: [.customShort("v"), .long], help: "Also print attempts and completion commands.")
  var verbose = false

  @Option(
    help: ArgumentHelp(
      "Among ready jobs of one priority: fifo (manifest order) or critical-path (the job heading the longest "
        + "remaining path first, weighed by past durations).", valueName: "ORDER"))
  var schedule: Schedule = .fifo

  @Flag(
    name: [.customShort("r"), .long], help: "Skip the jobs that succeeded unchanged in the last run (see oprun log).")
  var resume = false

  @Flag(help: "Keep no journal of this run in .oprun/runs/ beside the manifest.")
  var noJournal = false

  @Flag(
    name: [.customShort("B"), .long],
    help: "Run every selected job, even one whose inputs and outputs show it up to date (and record it).")
  var force = false

  @Option(
    help: ArgumentHelp(
      "What running jobs' declared resources may add up to, over the manifest's budget: either part, e.g. "
        + "cpus=8,memory=16G (default: the CPUs and memory oprun may use here).", valueName: "BUDGET"))
  var budget: String?

  @Option(
    help: ArgumentHelp("Where jobs run: local (this machine) or slurm (one sbatch per job).", valueName: "BACKEND"))
  var backend: Backend = .local

  @Option(help: ArgumentHelp("With --backend slurm: the partition every job is submitted to.", valueName: "NAME"))
  var slurmPartition: String?

  @Option(help: ArgumentHelp("With --backend slurm: the account every job is charged to.", valueName: "NAME"))
  var slurmAccount: String?

  @Option(
    help: ArgumentHelp(
      "With --backend slurm: submit jobs of QoS class CLASS with Slurm QoS NAME (repeatable); unmapped: no --qos.",
      valueName: "CLASS=NAME"))
  var slurmQos: [String] = []

  @Option(
    help: ArgumentHelp(
      "With --backend slurm: one more sbatch argument for every job (repeatable), e.g. --slurm-arg=--mem=1G.",
      valueName: "ARG"))
  var slurmArg: [String] = []

  @Option(
    help: ArgumentHelp(
      "Restore and store jobs' outputs in this cache: a folder, or an http:// URL of a server speaking Bazel's "
        + "HTTP cache protocol (over OPRUN_CACHE and the manifest's cache).", valueName: "PATH|URL"),
    completion: .directory)
  var cache: String?

  @Flag(help: "Look up the cache, never store in it.")
  var cacheReadOnly = false

  @Flag(help: "Use no cache of outputs, whatever OPRUN_CACHE and the manifest say.")
  var noCache = false

  @Flag(help: "After the run, run again each time a selected job's inputs or the manifest change, until Ctrl-C.")
  var watch = false

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("With --watch: milliseconds of quiet after a change before a run starts.", valueName: "MS"))
  var watchDelay: Int?

  func validate() throws {
    if let watchDelay {
      guard watch else { throw ValidationError("--watch-delay says how long --watch waits: give --watch too") }
      guard watchDelay >= 0 else {
        throw ValidationError("invalid value '\(watchDelay)' for --watch-delay: a number of milliseconds, 0 or more")
      }
    }
    if noCache && (cache != nil || cacheReadOnly) {
      throw ValidationError("--no-cache excludes --cache and --cache-read-only")
    }
    if watch && dryRun { throw ValidationError("--watch and --dry-run exclude each other") }
    if keepGoing && failFast { throw ValidationError("--keep-going and --fail-fast exclude each other") }
    if quiet && verbose { throw ValidationError("--quiet and --verbose exclude each other") }
    if let maxConcurrent, maxConcurrent < 1 {
      throw ValidationError("invalid value '\(maxConcurrent)' for -j: at least 1 job must be able to run at once")
    }
    if !(grace >= 0 && grace.isFinite) {
      throw ValidationError("invalid value '\(grace.formatted)' for --grace: a number of seconds, 0 or more")
    }
    if eventsOutput != nil, events == nil {
      throw ValidationError("--events-output says what the event stream carries: give --events PATH too")
    }
    try validateOutputPaths()
    _ = try slurmQoSMap()
    _ = try budgetParts()
  }

  /// `--budget`'s parts; none without it.
  private func budgetParts() throws -> ResourceNeeds {
    guard let budget else { return ResourceNeeds() }
    switch BudgetArgument.parse(budget) {
    case .success(let parts): return parts
    case .failure(let error): throw ValidationError("invalid value '\(budget)' for --budget: \(error)")
    }
  }

  /// `--slurm-qos CLASS=NAME`, each class once.
  private func slurmQoSMap() throws -> [QualityOfService: String] {
    var map: [QualityOfService: String] = [:]
    for entry in slurmQos {
      let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
      let classes = QualityOfService.allCases.map(\.rawValue).joined(separator: ", ")
      guard parts.count == 2, let qos = QualityOfService(rawValue: parts[0]), !parts[1].isEmpty else {
        throw ValidationError("invalid value '\(entry)' for --slurm-qos: CLASS=NAME, CLASS one of \(classes)")
      }
      map[qos] = parts[1]
    }
    return map
  }

  func run() throws {
    let switches = RunSwitches(
      quiet: quiet, verbose: verbose, keepGoing: keepGoing, failFast: failFast, dryRun: dryRun, resume: resume,
      noJournal: noJournal, force: force, cacheReadOnly: cacheReadOnly, noCache: noCache,
      maxConcurrent: maxConcurrent, cache: cache)
    var configuration = switches.configuration(words: manifestAndJobs)
    configuration.outputMode = output
    configuration.eventsPath = events
    configuration.eventsOutput = eventsOutput ?? .all
    configuration.tracePath = trace
    configuration.grace = grace
    configuration.schedule = schedule
    configuration.backend = backend
    configuration.budget = try budgetParts()
    configuration.slurm.partition = slurmPartition
    configuration.slurm.account = slurmAccount
    configuration.slurm.qos = try slurmQoSMap()
    configuration.slurm.extraArguments = slurmArg
    if watch { configuration.watchDelay = Double(watchDelay ?? 100) / 1000 }
    throw ExitCode(RunCommandLine.execute(configuration))
  }

  /// The trace is a JSON document, not a stream: it cannot share standard output, nor a
  /// file with the event stream (each would truncate the other's lines).
  private func validateOutputPaths() throws {
    if trace == "-" {
      throw ValidationError("--trace needs a file: '-' (standard output) is only for --events")
    }
    if let events, let trace, events != "-", AbsolutePath.sameFile(events, trace) {
      throw ValidationError("--events and --trace name the same file '\(trace)': give each its own")
    }
  }
}

extension Double {
  /// `-1`, `0.5`: as a user would have typed it.
  fileprivate var formatted: String {
    self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
  }
}

extension RunConfiguration.OutputMode: ExpressibleByArgument {}
extension Schedule: ExpressibleByArgument {}
extension Backend: ExpressibleByArgument {}
extension EventsOutput: ExpressibleByArgument {}
