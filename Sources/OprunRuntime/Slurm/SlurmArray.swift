import OprunCore

/// One `sbatch` of a `--backend slurm` run: a job of its own, or the instances of a matrix job
/// that go as one job array — those handed over together, on their first attempt, with the
/// same dependencies, band, timeout and hold (so none depends on another, and Slurm may treat
/// them all alike). Each task runs its own instance's commands, chosen by
/// `$SLURM_ARRAY_TASK_ID` (``script(changingFolder:)``).
///
/// Invariants: `tasks` is never empty; `indices[i]` is `tasks[i]`'s index in the array, its
/// place among its matrix job's instances less a multiple of the most tasks an array may
/// have; indices grow.
struct SlurmArray {
  var tasks: [PlannedJob]
  var indices: [Int]
  /// At most so many tasks run at once (`%K`): the queue's limit, when it is below the
  /// number of tasks; nil for no limit.
  var throttle: Int?

  /// The most tasks of one array when the cluster does not say: Slurm's default
  /// `MaxArraySize` (1001) takes indices up to 1000.
  static let defaultMaxTasks = 1000

  /// `plan` as submissions, in its order (a job array where its first task was): every job
  /// after its dependencies still. `limits` are the queues' limits as written (nil: none); an
  /// array has at most `maxTasks` tasks, a larger matrix one array per so many instances.
  static func submissions(of plan: [PlannedJob], limits: [Int?], maxTasks: Int = defaultMaxTasks) -> [SlurmArray] {
    var submissions: [SlurmArray] = []
    var arrayOf: [Key: Int] = [:]
    for planned in plan {
      guard let key = Key(planned, maxTasks: maxTasks) else {
        submissions.append(SlurmArray(tasks: [planned], indices: [0]))
        continue
      }
      let index = planned.instanceIndex! % max(1, maxTasks)
      if let place = arrayOf[key] {
        submissions[place].tasks.append(planned)
        submissions[place].indices.append(index)
      } else {
        arrayOf[key] = submissions.count
        submissions.append(SlurmArray(tasks: [planned], indices: [index]))
      }
    }
    for place in submissions.indices where submissions[place].tasks.count > 1 {
      let queue = submissions[place].tasks[0].job.queue
      if queue < limits.count, let limit = limits[queue], limit < submissions[place].tasks.count {
        submissions[place].throttle = limit
      }
    }
    return submissions
  }

  /// What the instances of one array share.
  private struct Key: Hashable {
    var template: String
    /// Which block of the most tasks an array may have.
    var block: Int
    var dependencies: [JobID]
    var held: Bool
    var band: Priority
    var timeout: Double?

    /// Nil for a job that goes on its own: no matrix, or a later attempt.
    init?(_ planned: PlannedJob, maxTasks: Int) {
      guard let template = planned.job.instance?.template, let index = planned.instanceIndex,
        planned.order.work.attempt == 1
      else { return nil }
      self.template = template
      block = index / max(1, maxTasks)
      dependencies = planned.dependencies.sorted()
      held = planned.held
      band = planned.band
      timeout = planned.job.timeout
    }
  }

  /// `sbatch --array`'s value: the indices, runs of consecutive ones as `FIRST-LAST`, then
  /// `%K` when the throttle is set (`0-999%4`, `3,7,9`).
  var arraySpec: String {
    var runs: [String] = []
    var start = 0
    for position in indices.indices
    where position == indices.count - 1 || indices[position + 1] != indices[position] + 1 {
      runs.append(start == position ? "\(indices[start])" : "\(indices[start])-\(indices[position])")
      start = position + 1
    }
    return runs.joined(separator: ",") + (throttle.map { "%\($0)" } ?? "")
  }

  /// The batch script: each task runs what a submission of its instance alone would run
  /// (``SlurmBackend/script(of:)``), word for word through `eval`, after moving to the
  /// instance's folder when the tasks do not share one (relative to where sbatch ran, as `--chdir` is).
  func script(changingFolder: Bool) -> String {
    var lines = ["#!/bin/sh", "case $SLURM_ARRAY_TASK_ID in"]
    for (task, index) in zip(tasks, indices) {
      let run = "eval " + SlurmBackend.shellQuoted(SlurmBackend.script(of: task.order))
      let folder = SlurmBackend.shellQuoted(task.order.workingDirectory)
      lines.append("\(index)) " + (changingFolder ? "cd \(folder) && \(run)" : run) + " ;;")
    }
    lines.append("*) echo \"oprun: no task $SLURM_ARRAY_TASK_ID in this array\" >&2; exit 2 ;;")
    lines.append("esac")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The most tasks of one array by `scontrol show config`'s `MaxArraySize` (indices up to
  /// one less); nil when the text does not say.
  static func maxTasks(fromConfiguration text: String) -> Int? {
    for line in text.split(whereSeparator: \.isNewline) {
      let parts = line.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
      if parts.count == 2, parts[0] == "MaxArraySize", let size = Int(parts[1]) { return max(1, size - 1) }
    }
    return nil
  }
}
