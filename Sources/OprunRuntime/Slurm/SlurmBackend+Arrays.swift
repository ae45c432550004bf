import Glibc
import OprunCore

extension SlurmBackend {
  /// `plan` as submissions (``SlurmArray/submissions(of:limits:maxTasks:)``), each array within
  /// the cluster's `MaxArraySize`, asked of it (`scontrol show config`) the first time a plan
  /// holds instances of a matrix job.
  func submissions(of plan: [PlannedJob]) -> [SlurmArray] {
    guard plan.contains(where: { $0.instanceIndex != nil }) else {
      return SlurmArray.submissions(of: plan, limits: queueLimits)
    }
    if maxArrayTasks == nil {
      let answer = try? tool.run(["scontrol", "show", "config"]).get()
      maxArrayTasks = answer.flatMap { SlurmArray.maxTasks(fromConfiguration: $0.output) } ?? SlurmArray.defaultMaxTasks
    }
    return SlurmArray.submissions(of: plan, limits: queueLimits, maxTasks: maxArrayTasks!)
  }

  /// One `sbatch --array` for the tasks of `array`; each is followed from now on as the task
  /// `ARRAY_INDEX`, its output in a file of its own.
  func add(_ array: SlurmArray) -> Result<Void, SubmissionFailure> {
    let first = array.tasks[0]
    let template = first.job.instance?.template ?? first.job.name
    let stem = outputFolder + "/" + Self.fileName(of: first.job, named: template)
    let folders = Set(array.tasks.map(\.order.workingDirectory))
    // A file, not --wrap: one argument cannot hold the commands of a thousand instances.
    let scriptPath = stem + ".sbatch"
    if let problem = Self.write(array.script(changingFolder: folders.count > 1), to: scriptPath) {
      return .failure(SubmissionFailure("cannot write '\(scriptPath)' for sbatch: \(problem)"))
    }
    switch tool.run(sbatchArguments(array, script: scriptPath, outputPattern: stem + ".%a.out", folder: folders)) {
    case .failure(let error):
      return .failure(SubmissionFailure("cannot run sbatch: \(error)"))
    case .success(let answer):
      guard answer.succeeded, let slurmID = Self.jobID(answer.output) else {
        return .failure(
          SubmissionFailure("sbatch refused the \(array.tasks.count) instances of '\(template)': \(answer.message)"))
      }
      var tasks: [Int] = []
      for (planned, index) in zip(array.tasks, array.indices) {
        indexByJob[planned.job.id] = jobs.count
        tasks.append(jobs.count)
        jobs.append(
          ClusterJob(
            job: planned.job.id, name: planned.job.name, slurmID: slurmID, work: planned.order.work,
            commands: planned.order.commands.count, outputPath: stem + ".\(index).out", held: planned.held,
            arrayTask: index))
      }
      arrayTasks[slurmID] = tasks
      return .success(())
    }
  }

  /// `sbatch`'s arguments for a job array: its first task's (``sbatchArguments(_:outputPath:name:folder:)``)
  /// under its matrix job's name, with the array's script instead of the task's commands.
  func sbatchArguments(_ array: SlurmArray, script: String, outputPattern: String, folder folders: Set<String>)
    -> [String]
  {
    let first = array.tasks[0]
    // Tasks in folders of their own start where sbatch runs, as a relative --chdir would.
    let shared = folders.count == 1 ? folders.first! : "."
    var arguments = sbatchArguments(
      first, outputPath: outputPattern, name: first.job.instance?.template, folder: shared)
    arguments.removeAll { $0.hasPrefix("--wrap=") }
    return arguments + ["--array=\(array.arraySpec)", script]
  }

  /// How Slurm's commands name the jobs at `indices`, in their order: a job array once by its
  /// id when each of its tasks is among them or `covered`, else each task as `ARRAY_TASK`.
  func slurmNames(of indices: [Int], covered: (Int) -> Bool = { _ in false }) -> [String] {
    let chosen = Set(indices)
    var whole: [Int32: Bool] = [:]
    var named: Set<Int32> = []
    var names: [String] = []
    for index in indices {
      let job = jobs[index]
      guard job.arrayTask != nil, let tasks = arrayTasks[job.slurmID] else {
        names.append(job.slurmName)
        continue
      }
      let isWhole = whole[job.slurmID] ?? tasks.allSatisfy { chosen.contains($0) || covered($0) }
      whole[job.slurmID] = isWhole
      if !isWhole {
        names.append(job.slurmName)
      } else if named.insert(job.slurmID).inserted {
        names.append(String(job.slurmID))
      }
    }
    return names
  }

  /// Writes `text` to a new file at `path` (readable by its owner alone); the problem in words
  /// when it could not.
  static func write(_ text: String, to path: String) -> String? {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { return String(cString: strerror(errno)) }
    defer { close(fd) }
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return String(cString: strerror(errno))
      }
      bytes = bytes.dropFirst(count)
    }
    return nil
  }
}
