import OprunCore

/// The text of `--dry-run`: the order a serial run would start the jobs, and why; with
/// `--resume`, whether each job is resumed or why it runs; with `--schedule critical-path`,
/// each job's weight and remaining path, which decided its place among equals in priority.
enum PlanText {
  static func render(
    _ plan: [PlanStep], of graph: JobGraph, resumePlan: ResumePlan? = nil, criticalPath: CriticalPath? = nil
  ) -> String {
    let width = min(graph.jobs.indices.map { graph.reportedName(job: $0).count }.max() ?? 0, 24)
    let digits = String(plan.count).count
    var text = "plan: \(counted(plan.count, "job")) in the order a serial run starts them"
    if criticalPath != nil { text += ", longest remaining path first" }
    if let resumePlan {
      let resumed = resumePlan.resumedCount
      text += resumePlan.journalRun.map { " (against run \($0))" } ?? ""
      text += ": \(resumed) resumed, \(plan.count - resumed) to run"
    }
    text += "\n"
    for (index, step) in plan.enumerated() {
      let number = String(index + 1)
      let name = graph.reportedName(job: step.job)
      var reason = resumePlan.map { Self.resumeReason($0.decisions[step.job], in: graph) } ?? step.reason
      if let criticalPath { reason = Self.pathReason(of: step.job, in: criticalPath) + "; " + reason }
      text += String(repeating: " ", count: digits - number.count + 2) + number + ". "
      text += name + String(repeating: " ", count: max(width - name.count, 0)) + "  " + reason + "\n"
    }
    return text
  }

  /// `resumed`, or `runs: ` and why.
  static func resumeReason(_ decision: RunDecision, in graph: JobGraph) -> String {
    decision == .resumed ? "resumed" : "runs: " + decision.text(in: graph)
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
