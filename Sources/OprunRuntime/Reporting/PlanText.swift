import OprunCore

/// The text of `--dry-run`: the order a serial run would start the jobs, and why.
enum PlanText {
  static func render(_ plan: [PlanStep], of graph: JobGraph) -> String {
    let width = min(graph.jobs.map(\.name.count).max() ?? 0, 24)
    let digits = String(plan.count).count
    var text = "plan: \(counted(plan.count, "job")) in the order a serial run starts them\n"
    for (index, step) in plan.enumerated() {
      let number = String(index + 1)
      let name = graph.jobs[step.job].name
      text += String(repeating: " ", count: digits - number.count + 2) + number + ". "
      text += name + String(repeating: " ", count: max(width - name.count, 0)) + "  " + step.reason + "\n"
    }
    return text
  }
}
