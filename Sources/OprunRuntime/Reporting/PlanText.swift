import OprunCore

/// The text of `--dry-run`: the order a serial run would start the jobs, and why; with
/// `--resume`, whether each job is resumed or why it runs; with `--schedule critical-path`,
/// each job's weight and remaining path, which decided its place among equals in priority;
/// after each job's reason, its `description`.
enum PlanText {
  static func render(
    _ plan: [PlanStep], of graph: JobGraph, resumePlan: ResumePlan? = nil, filePlan: FilePlan? = nil,
    criticalPath: CriticalPath? = nil
  ) -> String {
    let width = min(graph.jobs.indices.map { graph.reportedName(job: $0).count }.max() ?? 0, 24)
    let digits = String(plan.count).count
    var text = "plan: \(counted(plan.count, "job")) in the order a serial run starts them"
    if criticalPath != nil { text += ", longest remaining path first" }
    func decision(of job: JobID) -> RunDecision? { filePlan?.decisions[job] ?? resumePlan?.decisions[job] }
    if let resumePlan { text += resumePlan.journalRun.map { " (against run \($0))" } ?? "" }
    if resumePlan != nil || filePlan != nil {
      let resumed = plan.count { decision(of: $0.job) == .resumed }
      let upToDate = plan.count { decision(of: $0.job) == .upToDate }
      let restored = plan.count { decision(of: $0.job) == .restored }
      let notRun = [
        (resumed, "resumed", resumePlan != nil), (upToDate, "up to date", filePlan != nil),
        (restored, "restored from cache", restored > 0),
      ]
      text += ": " + notRun.filter(\.2).map { "\($0.0) \($0.1), " }.joined()
      text += "\(plan.count - resumed - upToDate - restored) to run"
    }
    text += "\n"
    for (index, step) in plan.enumerated() {
      let number = String(index + 1)
      let name = graph.reportedName(job: step.job)
      var reason = decision(of: step.job).map { Self.resumeReason($0, in: graph) } ?? step.reason
      if let criticalPath { reason = Self.pathReason(of: step.job, in: criticalPath) + "; " + reason }
      text += String(repeating: " ", count: digits - number.count + 2) + number + ". "
      text += name + String(repeating: " ", count: max(width - name.count, 0)) + "  " + reason
      if let description = graph.jobs[step.job].description, !description.isEmpty {
        text += " — " + DisplayText.escaped(description)
      }
      text += "\n"
    }
    return text
  }

  /// `resumed`, `up to date`, `runs if build's outputs change`, or `runs: ` and why; a path
  /// it names shown as ``DisplayText`` shows text, so that a file name cannot break the line.
  static func resumeReason(_ decision: RunDecision, in graph: JobGraph) -> String {
    let text = DisplayText.escaped(decision.text(in: graph))
    return switch decision {
    case .resumed, .upToDate, .restored: text
    case .runs(.dependencyMayChange): "runs " + text
    case .runs: "runs: " + text
    }
  }

  /// `weight 2.5s, path 7.25s`, or `weight 1s (unknown), path 3s` for a job no journal
  /// measured.
  static func pathReason(of job: JobID, in criticalPath: CriticalPath) -> String {
    let unknown = criticalPath.isKnown[job] ? "" : " (unknown)"
    let weight = seconds(criticalPath.weight(of: job))
    return "weight \(weight)\(unknown), path \(seconds(criticalPath.remainingPath(of: job)))"
  }

  /// Milliseconds at most, as the journal records durations: `0.004s`, `12s`.
  private static func seconds(_ value: Double) -> String {
    DecimalText.string(value, fractionDigits: 3, trimmingZeros: true) + "s"
  }
}
