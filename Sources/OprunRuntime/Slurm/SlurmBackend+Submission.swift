import Glibc
import OprunCore

extension SlurmBackend {
  /// Submits every job of `plan`, in order, each with the Slurm ids of its dependencies — the
  /// instances of a matrix job that go together as one job array (``SlurmArray``); a refused
  /// submission cancels what was submitted before it. Polling begins once all are in.
  func submit(_ plan: [PlannedJob]) -> Result<Void, SubmissionFailure> {
    if let failure = makeOutputFolder() { return .failure(failure) }
    for submission in submissions(of: plan) {
      let added = submission.tasks.count == 1 ? add(submission.tasks[0]) : add(submission)
      if case .failure(let failure) = added {
        let already = jobs.isEmpty ? "" : " (the \(jobs.count) job(s) submitted before it were cancelled)"
        cancel(Array(jobs.indices))
        return .failure(SubmissionFailure(failure.description + already))
      }
    }
    schedulePoll()
    return .success(())
  }

  /// Submits one more job, or another attempt of one, while the run goes on; polled with
  /// the others from the next poll on.
  func submitLater(_ planned: PlannedJob) -> Result<Void, SubmissionFailure> {
    if jobs.isEmpty, let failure = makeOutputFolder() { return .failure(failure) }
    let added = add(planned)
    if case .success = added, !isPolling { schedulePoll() }
    return added
  }

  /// Submits jobs that became free to go together, as ``submit(_:)`` does (a matrix job's
  /// instances as one job array); a refusal leaves the others alone.
  func submitLater(_ planned: [PlannedJob]) -> [Result<Void, SubmissionFailure>] {
    if jobs.isEmpty, let failure = makeOutputFolder() { return planned.map { _ in .failure(failure) } }
    var results: [JobID: Result<Void, SubmissionFailure>] = [:]
    for submission in submissions(of: planned) {
      let added = submission.tasks.count == 1 ? add(submission.tasks[0]) : add(submission)
      for task in submission.tasks { results[task.job.id] = added }
    }
    if !isPolling, results.values.contains(where: { if case .success = $0 { true } else { false } }) { schedulePoll() }
    return planned.map { results[$0.job.id]! }
  }

  /// One `sbatch`; the job is followed from now on, as the job's current attempt.
  private func add(_ planned: PlannedJob) -> Result<Void, SubmissionFailure> {
    let attempt = planned.order.work.attempt ?? 1
    let outputPath = outputFolder + "/" + Self.fileName(of: planned.job, attempt: attempt)
    switch tool.run(sbatchArguments(planned, outputPath: outputPath)) {
    case .failure(let error):
      return .failure(SubmissionFailure("cannot run sbatch: \(error)"))
    case .success(let answer):
      guard answer.succeeded, let slurmID = Self.jobID(answer.output) else {
        let which = attempt > 1 ? " (attempt \(attempt))" : ""
        return .failure(SubmissionFailure("sbatch refused job '\(planned.job.name)'\(which): \(answer.message)"))
      }
      indexByJob[planned.job.id] = jobs.count
      jobs.append(
        ClusterJob(
          job: planned.job.id, name: planned.job.name, slurmID: slurmID, work: planned.order.work,
          commands: planned.order.commands.count, outputPath: outputPath, held: planned.held))
      return .success(())
    }
  }

  /// `sbatch`'s arguments for one job: the extra ones first, so that oprun's own win. A job
  /// array's (``sbatchArguments(_:script:outputPattern:folder:)``) are its first task's, under its
  /// matrix job's `name`, in its tasks' shared `folder`.
  func sbatchArguments(_ planned: PlannedJob, outputPath: String, name: String? = nil, folder: String? = nil)
    -> [String]
  {
    var arguments = ["sbatch", "--parsable"] + options.extraArguments
    arguments += [
      "--job-name=oprun:\(runID):\(name ?? planned.job.name)", "--output=\(outputPath)",
      "--chdir=\(folder ?? planned.order.workingDirectory)", "--nice=\(planned.band.slurmNice)",
    ]
    if let dependency = dependency(of: planned) { arguments.append("--dependency=\(dependency)") }
    if planned.held { arguments.append("--hold") }
    if let timeout = planned.job.timeout { arguments.append("--time=\(Int((timeout / 60).rounded(.up)))") }
    if let qos = options.qos[planned.job.qos] { arguments.append("--qos=\(qos)") }
    // What the job declares it needs (SPEC §12); the cluster schedules it, not the budget.
    if let cpus = planned.job.needs.cpus { arguments.append("--cpus-per-task=\(cpus)") }
    if let memory = planned.job.needs.memory { arguments.append("--mem=\((memory + (1 << 20) - 1) >> 20)M") }
    if let partition = options.partition { arguments.append("--partition=\(partition)") }
    if let account = options.account { arguments.append("--account=\(account)") }
    arguments.append("--wrap=\(Self.script(of: planned.order))")
    return arguments
  }

  /// `--dependency` from the job's dependencies and `run-if`: success → `afterok`, always →
  /// `afterany`, failure → `afternotok` of any one of them (`?`: Slurm starts it once one
  /// dependency failed). A job array whose every task is a dependency is named once, by its id (Slurm then
  /// waits for all its tasks), except under `afternotok`, which must hold for any one task.
  func dependency(of planned: PlannedJob) -> String? {
    let indices = planned.dependencies.compactMap { indexByJob[$0] }
    guard !indices.isEmpty else { return nil }
    switch planned.job.runIf {
    case .success: return "afterok:" + slurmNames(of: indices).joined(separator: ":")
    case .always: return "afterany:" + slurmNames(of: indices).joined(separator: ":")
    case .failure: return indices.map { "afternotok:" + jobs[$0].slurmName }.joined(separator: "?")
    }
  }

  /// The batch script's body: the job's environment, then its commands — one as it is,
  /// several at once, the first that fails deciding the job's exit status.
  static func script(of order: WorkOrder) -> String {
    var lines = order.environment.map { "export \($0.name)=\(shellQuoted($0.value))" }
    if order.commands.count == 1 {
      lines.append(order.commands[0])
    } else {
      for (index, command) in order.commands.enumerated() { lines.append("(\n\(command)\n) & oprun_\(index)=$!") }
      lines.append("oprun_status=0")
      for index in order.commands.indices {
        lines.append("wait $oprun_\(index); oprun_c=$?; [ $oprun_status = 0 ] && oprun_status=$oprun_c")
      }
      lines.append("exit $oprun_status")
    }
    return lines.joined(separator: "\n")
  }

  /// `value` in single quotes, for /bin/sh.
  static func shellQuoted(_ value: String) -> String {
    "'" + value.replacing("'", with: "'\\''") + "'"
  }

  /// A job's output file: its index and name, with what a file name or Slurm's `%` patterns
  /// would take otherwise replaced; a retry's has its attempt too, so that each attempt's
  /// output stays.
  static func fileName(of job: JobNode, attempt: Int = 1) -> String {
    let stem = fileName(of: job, named: job.name)
    return attempt > 1 ? "\(stem).attempt-\(attempt).out" : "\(stem).out"
  }

  /// `ID-NAME`, `name` with what a file name or Slurm's `%` patterns would take replaced.
  static func fileName(of job: JobNode, named name: String) -> String {
    let safe = name.unicodeScalars.map { scalar -> String in
      switch scalar {
      case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".": String(scalar)
      default: "_"
      }
    }.joined()
    return "\(job.id)-\(safe)"
  }

  /// The id in `sbatch --parsable`'s answer (`ID` or `ID;CLUSTER`).
  static func jobID(_ output: String) -> Int32? {
    let line = output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
    return Int32(line.split(separator: ";").first.map(String.init)?.trimmingSpaces ?? "")
  }

  func makeOutputFolder() -> SubmissionFailure? {
    var path = ""
    for part in outputFolder.split(separator: "/", omittingEmptySubsequences: false) {
      path += path.isEmpty && part.isEmpty ? "/" : (path.hasSuffix("/") || path.isEmpty ? "" : "/") + part
      guard !path.isEmpty, path != "/" else { continue }
      // Without access for others, as every folder of .oprun/ (SPEC §9).
      if mkdir(path, 0o700) != 0 && errno != EEXIST {
        return SubmissionFailure("cannot create '\(path)' for the jobs' output: \(String(cString: strerror(errno)))")
      }
    }
    return nil
  }
}
