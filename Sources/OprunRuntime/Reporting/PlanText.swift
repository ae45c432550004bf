import OprunCore

/// The text of `--dry-run`: the order a serial run would start the jobs, and why; with
/// `--resume`, whether each job is resumed or why it runs.
enum PlanText {
  static func render(_ plan: [PlanStep], of graph: JobGraph, resumePlan: ResumePlan? = nil) -> String {
    let width = min(graph.jobs.indices.map { graph.reportedName(job: $0).count }.max() ?? 0, 24)
    let digits = String(plan.count).count
    var text = "plan: \(counted(plan.count, "job")) in the order a serial run starts them"
    if let resumePlan {
      let resumed = resumePlan.resumedCount
      text += resumePlan.journalRun.map { " (against run \($0))" } ?? ""
      text += ": \(resumed) resumed, \(plan.count - resumed) to run"
    }
    text += "\n"
    for (index, step) in plan.enumerated() {
      let number = String(index + 1)
      let name = graph.reportedName(job: step.job)
      let reason = resumePlan.map { Self.resumeReason($0.decisions[step.job], in: graph) } ?? step.reason
      text += String(repeating: " ", count: digits - number.count + 2) + number + ". "
      text += name + String(repeating: " ", count: max(width - name.count, 0)) + "  " + reason + "\n"
    }
    return text
  }

  /// `resumed`, or `runs: ` and why.
  static func resumeReason(_ decision: RunDecision, in graph: JobGraph) -> String {
    decision == .resumed ? "resumed" : "runs: " + decision.text(in: graph)
  }
}
