import Glibc
import OprunCore

/// One local run from its first event to its last: sinks and reporters observing the
/// driver, the local backend on one event loop, signals trapped and turned into commands,
/// and the ending reported and drained to a reader however slow.
final class RunSession {
  let plan: RunPlan
  let configuration: RunConfiguration
  let loop = EventLoop()
  /// Hashes the files of jobs that declare inputs or outputs; its cache is saved at the end.
  private let hasher: FileHasher?
  /// This run's journal, while one is kept.
  private var journal: JournalWriter?
  /// Adding this run grew the index of runs past another step: its entries of gone journals
  /// are to be dropped.
  private var indexIsDueForPruning = false
  /// The pruning of old journals and of the index's entries of gone ones, on a pool thread
  /// beside the jobs; the run waits for it before it ends, so that a pruning the run began is
  /// never cut short by its exit.
  private var pruning: PendingValue<Bool>?

  var graph: JobGraph { plan.graph }
  /// Called once the run has begun, with its loop and driver: what else the run's loop is to
  /// serve (the watcher of `--watch`), steering the run only through the driver's `apply`.
  var whileRunning: ((EventLoop, RunDriver) -> Void)?
  /// What the run came to, as its summary said it; nil until it has finished.
  private(set) var summary: RunSummary?

  init(plan: RunPlan, configuration: RunConfiguration, hasher: FileHasher?) {
    self.plan = plan
    self.configuration = configuration
    self.hasher = hasher
  }

  func run() -> Int32 {
    let output = OutputFlow(loop: loop)
    let eventsToStandardOutput = configuration.eventsPath == "-"
    let humanFD = Self.humanFileDescriptor(configuration)
    let humanOut = output.sink(fileDescriptor: humanFD, lineBuffered: Terminal.isTerminal(humanFD))
    let humanErr = output.sink(fileDescriptor: STDERR_FILENO, lineBuffered: true)
    let human = HumanReporter(graph: graph, options: humanOptions(humanFD: humanFD), out: humanOut, err: humanErr)
    var observers: [any RunObserver] = [human]
    if let path = configuration.eventsPath {
      guard let sink = openSink(path, standardOutput: eventsToStandardOutput, output) else {
        return failToOpen(path)
      }
      observers.append(EventStreamWriter(graph: graph, sink: sink, includingOutput: configuration.eventsOutput == .all))
    }
    if let path = configuration.tracePath {
      guard let sink = openSink(path, standardOutput: false, output) else { return failToOpen(path) }
      observers.append(TraceWriter(graph: graph, sink: sink))
    }

    let local = LocalBackend(
      loop: loop, framing: configuration.outputMode == .raw ? .terminalLines : .jobLines,
      environment: SpawnEnvironment(SpawnEnvironment.inherited()), grace: configuration.grace)
    local.secrets = graph.secretPatterns { name in getenv(name).map { String(cString: $0) } }
    let newJournal = plan.keepsJournal ? createJournal() : nil
    let identity = RunIdentity.starting(
      id: (try? newJournal?.get())?.run ?? RunID.make(), manifestPath: configuration.manifestPath)
    let slurm = plan.backend == .slurm ? slurmBackend(local: local, run: identity.id) : nil
    // Jobs that declare resources run in cgroups of the run's own (SPEC §12); on a cluster
    // the cluster holds them.
    if slurm == nil, graph.jobs.contains(where: { $0.needs.declaresAny }) {
      local.cgroupRunName = "oprun-\(identity.id)"
    }
    let backend: any JobBackend = slurm ?? local
    let tracking = fileTracking(ownJournal: (try? newJournal?.get())?.file)
    let cache = tracking == nil ? nil : plan.cache.flatMap { try? OutputCache.open($0, loop: loop, hashes: hasher?.cache) }
    let driver = RunDriver(plan: plan, fileTracking: tracking, cache: cache, backend: backend, clock: loop)
    local.onWarning = { [unowned driver] in driver.warn($0) }
    slurm?.onWarning = { [unowned driver] in driver.warn($0) }
    var warnings = plan.warnings

    // Trapped before anything is submitted: a signal that comes meanwhile is taken once the
    // run has begun, and cancels what was submitted rather than leaving it queued.
    var trap: SignalTrap?
    do {
      trap = try SignalTrap(loop: loop) { signal in
        guard !output.takesSignalWhileDraining(signal) else { return }
        Self.handle(signal, driver: driver, stoppingSelf: { trap?.stopSelf() })
      }
    } catch {
      warnings.append("cannot trap signals: \(error)")
    }

    // A backend that takes the whole run has it before it begins: a refusal ends it with nothing left queued.
    if let failure = driver.handOverToBackend() {
      RunCommandLine.writeAll(2, "oprun: error: --backend \(plan.backend.rawValue): \(failure)\n")
      trap?.uninstall()
      return ExitStatus.usage
    }
    // The journal observes first: a job is in it before any reporter shows it finished, so
    // that a run killed just after a job was seen to finish still has it.
    if let newJournal, let journalWarning = openJournal(newJournal, of: identity, driver: driver) {
      warnings.append(journalWarning)
    }
    if journal != nil, let created = try? newJournal?.get() { pruneJournals(keeping: created.file) }
    for observer in observers { driver.addObserver(observer) }
    output.onReaderClosed = { driver.apply(.outputClosed) }
    output.onWarning = { driver.warn($0) }

    let (control, controlWarning) = openControlChannel(driver: driver, identity: identity)
    if let controlWarning { warnings.append(controlWarning) }
    driver.start(run: identity, control: control?.path, warnings: warnings)
    whileRunning?(loop, driver)
    if human.options.statusLineColumns != nil { refreshStatusLine(of: human, driver: driver, terminal: humanFD) }
    loop.run { driver.isFinished }
    if let cache { awaitStores(of: driver, in: cache) }
    control?.stopListening()
    let status = driver.finish()
    if let cache, let counts = driver.cacheCounts {
      cache.close()
      cache.runEnded(hits: counts.hits, misses: counts.misses, stored: counts.stored)
    }
    summary = human.summary
    hasher?.cache.save()
    _ = pruning?.value
    if let journal, let fileRecords = plan.fileRecords {
      removeListingsNoLongerNamed(after: journal, records: fileRecords)
    }
    control?.finish()
    output.drain(alongWith: { control?.isDrained ?? true })
    control?.close()
    if let signal = driver.endingSignal ?? output.endingSignal, let trap {
      trap.restoreDefaultsAndRaise(signal)
    }
    trap?.uninstall()
    return status
  }

  /// Seconds the run waits at its end for what it is storing in the cache (SPEC §14).
  static let storeWait = 30.0

  /// Serves the loop until every store in the cache has ended, or for at most ``storeWait``
  /// seconds, after which the run warns and ends as it would have.
  private func awaitStores(of driver: RunDriver, in cache: OutputCache) {
    guard driver.isStoringInCache else { return }
    var timedOut = false
    let timer = loop.schedule(after: Self.storeWait) { timedOut = true }
    // Ctrl-C while the run waits for its stores ends the wait: nothing is left to cancel.
    loop.run { !driver.isStoringInCache || timedOut || driver.endingSignal != nil }
    loop.cancelTimer(timer)
    if driver.isStoringInCache {
      let why = timedOut ? "after \(Int(Self.storeWait))s" : "when the run was interrupted"
      driver.warn(
        "cache \(cache.store.name): stores still under way \(why) were given up; "
          + "the jobs they were for run again elsewhere")
    }
  }

  /// What oprun does with the signals it traps (SPEC §3.4): each becomes a command.
  /// Ctrl-Z stops the jobs, then oprun itself; when the shell continues oprun (`fg`),
  /// the jobs continue too (SIGCONT reaches the trap as well).
  static func handle(_ signal: Int32, driver: RunDriver, stoppingSelf stopSelf: () -> Void) {
    switch signal {
    case SIGINT:
      driver.apply(.cancelRun(reason: .interrupt, endingSignal: SIGINT))
    case SIGTERM, SIGHUP:
      driver.apply(.cancelRun(reason: .terminate, endingSignal: signal))
    case SIGUSR1:
      driver.apply(.toggleSuspension)
    case SIGTSTP:
      driver.apply(.stopJobs)
      stopSelf()
      driver.apply(.continueJobs)
    case SIGCONT:
      driver.apply(.continueJobs)
    default:
      break
    }
  }

  /// The Slurm backend of this run: its jobs' output in `.oprun/slurm/RUN-ID/` beside the manifest.
  private func slurmBackend(local: LocalBackend, run: String) -> SlurmBackend {
    let state = StateFolder.resolved(manifestPath: configuration.manifestPath)
    return SlurmBackend(
      loop: loop, local: local, options: configuration.slurm.over(graph.manifest.slurm), runID: run,
      outputFolder: state.slurmOutput(run: run), environment: SpawnEnvironment.inherited(),
      queueLimits: writtenQueueLimits())
  }

  /// Each queue's `max-concurrent` as `-j` or the manifest wrote it; nil where neither did (the
  /// default, this machine's CPUs, says nothing about a cluster).
  private func writtenQueueLimits() -> [Int?] {
    let manifest = graph.manifest
    return graph.queues.indices.map { queue in
      if let limit = configuration.maxConcurrent { return limit }
      if queue == 0 { return manifest.maxConcurrent?.value }
      return manifest.queues.first { $0.name == graph.queues[queue].name }?.maxConcurrent?.value
    }
  }

  /// What lets files decide whether jobs run, when some job declares inputs or outputs;
  /// `ownJournal` is this run's, which holds no record yet of a job it has not finished.
  private func fileTracking(ownJournal: String?) -> FileTracking? {
    guard let fileRecords = plan.fileRecords, let hasher else { return nil }
    guard let delivery = try? FileSnapshotDelivery(hasher: hasher, loop: loop) else {
      // Without a way to hear from the hashing threads, every job runs, as without inputs.
      return nil
    }
    let inputs = FileListings(.inputs, manifestPath: configuration.manifestPath)
    let outputs = FileListings(.outputs, manifestPath: configuration.manifestPath)
    let follower = JournalFollower(
      folder: JournalFolder(manifestPath: configuration.manifestPath), ownJournal: ownJournal)
    return FileTracking(
      checker: delivery, records: fileRecords, recordedInputs: { inputs.listing(digest: $0) },
      recordedOutputs: { outputs.listing(digest: $0) }, force: configuration.force,
      locks: plan.locksSince.map { JobLocks(manifestPath: configuration.manifestPath, lookedAt: $0) },
      newestRecord: { follower.newestRecord(of: $0) })
  }

  /// Removes the listings of inputs and of outputs that only records this run replaced named:
  /// each job's newest record now names those this run wrote, or those it had.
  private func removeListingsNoLongerNamed(after journal: JournalWriter, records: [String: JournalRecord]) {
    let written = journal.recordedListings
    guard !written.isEmpty else { return }
    for kind in [FileListings.Kind.inputs, .outputs] {
      func digest(of record: RecordedFiles) -> String? { kind == .inputs ? record.inputs : record.outputs.keptDigest }
      func digest(of listings: JournalWriter.RecordedListings) -> String? {
        kind == .inputs ? listings.inputs : listings.outputs
      }
      var named = Set(written.values.compactMap(digest(of:)))
      var replaced = Set<String>()
      for (name, record) in records {
        guard let files = record.files, let old = digest(of: files) else { continue }
        if written[name] == nil { named.insert(old) } else { replaced.insert(old) }
      }
      let listings = FileListings(kind, manifestPath: configuration.manifestPath)
      for old in replaced.subtracting(named) { listings.remove(digest: old) }
    }
  }

  /// This run's journal, numbered after the others: its RUN-ID carries the number.
  private func createJournal() -> Result<JournalFolder.NewJournal, JournalError> {
    JournalFolder(manifestPath: configuration.manifestPath).create { RunID.make(sequence: $0) }
  }

  /// Adds the writer of `newJournal` to `driver`'s observers; or, when it cannot be kept, the
  /// warning to give (the run goes on without one).
  private func openJournal(
    _ newJournal: Result<JournalFolder.NewJournal, JournalError>, of identity: RunIdentity, driver: RunDriver
  ) -> String? {
    switch newJournal {
    case .failure(let error):
      return "no journal of this run (\(error.message)); --resume will not know it"
    case .success(let created):
      let writer = JournalWriter(
        descriptor: created.descriptor, file: created.file, graph: graph, fingerprints: plan.fingerprints,
        identity: identity, arguments: configuration.arguments, targets: configuration.targets,
        warn: { driver.warn($0) })
      journal = writer
      driver.addObserver(writer)
      return addToIndex(run: identity.id)
    }
  }

  /// Names this run's journal in the index of this user's runs; nil when done (or when no home
  /// folder is known to keep an index in), else the warning to give.
  private func addToIndex(run id: String) -> String? {
    guard let index = RunIndex.ofThisUser() else { return nil }
    let state = StateFolder.resolved(manifestPath: configuration.manifestPath)
    let journal = state.runs + "/" + JournalName(run: id).fileName
    switch index.record(run: id, journal: journal) {
    case .success(let isDueForPruning):
      indexIsDueForPruning = isDueForPruning
      return nil
    case .failure(let problem):
      return "this run is not in the index of runs (\(problem.message)): 'oprun log \(id)' finds it only "
        + "in the manifest's folder"
    }
  }

  /// Removes this manifest's journals but the newest, keeping `newJournal` (this run's); and,
  /// when adding this run grew the index of runs past another step, the index's entries of the
  /// journals that are gone. The index is left as it is otherwise, entries of journals just
  /// removed included (`oprun log` says of those that their journal is gone): rewriting it, and
  /// looking at every journal it names, for each run would cost every run more than the
  /// run itself. Done on one of the hashing threads, never on the loop: reading the journals'
  /// headers and removing a file take longer than a trivial job (a removed file's blocks are
  /// freed as it goes), and the index's journals may be in any folder the user ever ran in, a
  /// hung network mount among them, while the loop must go on reaping jobs, reading output,
  /// timing jobs out and taking signals.
  private func pruneJournals(keeping newJournal: String) {
    let folder = JournalFolder(manifestPath: configuration.manifestPath)
    let tracked = graph.trackedJobNames
    let indexIsDueForPruning = indexIsDueForPruning
    pruning = PendingValue(on: HashingPool.shared) {
      folder.prune(keeping: newJournal, tracked: tracked)
      if indexIsDueForPruning, let index = RunIndex.ofThisUser() { index.dropEntriesOfGoneJournals() }
      return true
    }
  }

  /// Redraws the status line once a second, with the time and the terminal's width then,
  /// until the run has finished: it says how long the run has taken even while no event comes.
  private func refreshStatusLine(of human: HumanReporter, driver: RunDriver, terminal: Int32) {
    _ = loop.schedule(after: 1) { [weak self, weak human] in
      guard let self, let human, !driver.isFinished else { return }
      human.refreshStatusLine(at: driver.runTime, columns: Terminal.columns(terminal))
      refreshStatusLine(of: human, driver: driver, terminal: terminal)
    }
  }

  /// Where the human lines go: standard output, unless the event stream takes it (`--events -`).
  static func humanFileDescriptor(_ configuration: RunConfiguration) -> Int32 {
    configuration.eventsPath == "-" ? STDERR_FILENO : STDOUT_FILENO
  }

  /// Whether `fd` is a terminal that can show colours and erase a line (a dumb one cannot).
  static func isCapableTerminal(_ fd: Int32) -> Bool {
    Terminal.isTerminal(fd) && getenv("TERM").map { String(cString: $0) } != "dumb"
  }

  private func humanOptions(humanFD: Int32) -> HumanOptions {
    let noColor = getenv("NO_COLOR").map { String(cString: $0) }
    let capableTerminal = Self.isCapableTerminal(humanFD)
    let color = capableTerminal && (noColor == nil || noColor == "")
    let githubActions = getenv("GITHUB_ACTIONS").map { String(cString: $0) } == "true"
    return HumanOptions(
      outputMode: configuration.outputMode, color: color, verbosity: configuration.verbosity,
      githubActions: githubActions, statusLineColumns: capableTerminal ? Terminal.columns(humanFD) : nil)
  }

  private func openSink(_ path: String, standardOutput: Bool, _ output: OutputFlow) -> OutputSink? {
    if standardOutput { return output.sink(fileDescriptor: STDOUT_FILENO, lineBuffered: true) }
    let fd = open(
      path, O_WRONLY | O_CREAT | O_CLOEXEC | (configuration.appendsToOutputFiles ? O_APPEND : O_TRUNC), 0o644)
    return fd < 0 ? nil : output.sink(fileDescriptor: fd, path: path, lineBuffered: true)
  }

  private func failToOpen(_ path: String) -> Int32 {
    RunCommandLine.writeAll(2, "oprun: error: cannot write '\(path)': \(errorMessage(errno))\n")
    return ExitStatus.usage
  }
}
