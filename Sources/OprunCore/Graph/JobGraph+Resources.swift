extension JobGraph {
  /// Whether any job declares what it needs: the budget matters only then (SPEC §12).
  public var declaresResources: Bool { jobs.contains { $0.needs.declaresAny } }

  /// The budget the manifest writes, part by part; what it leaves out is the machine's.
  public var manifestBudget: ResourceNeeds { manifest.budget.amounts }

  /// Each job whose needs `budget`'s given parts could never hold, even with nothing else running, at
  /// where the need is written: a run with `--budget`, or with the machine's budget, refuses
  /// them as the manifest's own `budget` does. `budgetNamed` says whose budget it is.
  public func needsBeyond(_ budget: ResourceNeeds, budgetNamed: String) -> [Diagnostic] {
    guard budget.declaresAny else { return [] }
    var problems: [Diagnostic] = []
    for job in jobs where job.needs.declaresAny {
      problems += job.needsBeyond(budget, budgetNamed: budgetNamed)
    }
    return problems
  }
}

extension JobNode {
  /// Where this job's needs pass `budget`'s given parts: one error per part, at the need.
  func needsBeyond(_ budget: ResourceNeeds, budgetNamed: String) -> [Diagnostic] {
    var problems: [Diagnostic] = []
    if let cpus = self.resources.cpus, let limit = budget.cpus, cpus.value > limit {
      let message =
        "job '\(name)' needs \(counted(cpus.value, "CPU")), more than \(budgetNamed) of \(counted(limit, "CPU")): "
        + "it could never start"
      problems.append(Diagnostic(at: cpus.location, message))
    }
    if let memory = self.resources.memory, let limit = budget.memory, memory.value > limit {
      let message =
        "job '\(name)' needs \(MemoryText.text(bytes: memory.value)) of memory, more than \(budgetNamed) of "
        + "\(MemoryText.text(bytes: limit)): it could never start"
      problems.append(Diagnostic(at: memory.location, message))
    }
    return problems
  }
}
