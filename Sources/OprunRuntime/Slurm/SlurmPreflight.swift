import OprunCore

/// What `--backend slurm` checks before anything is submitted, and how it fits a graph to the
/// cluster.
enum SlurmPreflight {
  /// What the check before submitting found.
  enum Verdict: Equatable {
    /// The run can be submitted.
    case ready
    /// Slurm's client is missing or its controller does not answer: an error for `oprun: error: `.
    case problem(String)
    /// A cancelling signal came while the controller was asked (its `scontrol ping` killed):
    /// oprun ends by it, nothing submitted.
    case interrupted(by: Int32)
  }

  /// Whether Slurm's client is there and its controller answers `scontrol ping`; a hung
  /// controller leaves the user Ctrl-C.
  static func check() -> Verdict {
    let missing =
      "--backend slurm: Slurm's commands (sbatch, squeue, scontrol) are not on PATH; install Slurm's client "
      + "(Debian: slurm-client) or run on a machine of the cluster"
    let tool = SlurmTool(spawner: Spawner(), environment: SpawnEnvironment(SpawnEnvironment.inherited()))
    switch tool.runCancellably(["scontrol", "ping"]) {
    case .failure:
      return .problem(missing)
    case .success(.interrupted(let signal)):
      return .interrupted(by: signal)
    // 127: not found on PATH (the shell's own status, which a direct start falls back to).
    case .success(.answered(let answer)) where answer.status == .exited(127):
      return .problem(missing)
    case .success(.answered(let answer)) where !answer.succeeded || answer.output.contains("DOWN"):
      // Its first line says which controller is down; the rest is a banner.
      let first = (answer.errors.isEmpty ? answer.output : answer.errors).split(whereSeparator: \.isNewline).first
      let said = first.map { " (scontrol ping: \(String($0).trimmingSpaces))" } ?? ""
      return .problem(
        "--backend slurm: the cluster's controller does not answer\(said); is SLURM_CONF right, is slurmctld up?")
    case .success(.answered):
      return .ready
    }
  }

  /// `graph` as a cluster runs it: the cluster decides how many jobs run at once, so no queue
  /// limits them. Nothing else changes, and nothing is said: a retry is another submission.
  static func fitting(_ graph: JobGraph) -> JobGraph {
    var graph = graph
    for index in graph.queues.indices { graph.queues[index].maxConcurrent = max(1, graph.jobs.count) }
    return graph
  }
}
