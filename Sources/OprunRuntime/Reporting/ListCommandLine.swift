import Glibc
import OprunCore

/// `oprun list [MANIFEST] [--json]` (SPEC §15): the manifest's jobs as ``JobList`` shows them,
/// each marked up to date as `-n` decides it.
public enum ListCommandLine {
  /// Prints the list of the manifest `words` name (as a run reads them; JOBs restrict the
  /// list to them and their dependencies) and returns oprun's exit status: 2 when the
  /// manifest has problems.
  public static func execute(words: [String], json: Bool) -> Int32 {
    var configuration = RunConfiguration(words: words)
    configuration.dryRun = true
    if let warning = configuration.argumentWarning { RunCommandLine.writeAll(2, "oprun: warning: \(warning)\n") }
    let prepared: PreparedRun
    switch RunPlan.prepare(configuration) {
    case .success(let run): prepared = run
    case .failure(let message):
      RunCommandLine.writeAll(2, message)
      return ExitStatus.usage
    }
    let plan = prepared.plan
    for warning in plan.warnings { RunCommandLine.writeAll(2, "oprun: warning: \(warning)\n") }
    let filePlan = plan.filePlan(hasher: prepared.hasher, manifestPath: configuration.manifestPath)
    let list = JobList(plan.graph, manifest: configuration.manifestPath, decisions: filePlan?.decisions ?? [])
    RunCommandLine.writeAll(STDOUT_FILENO, json ? list.json : list.text(mainQueue: plan.graph.queues[0].name))
    return ExitStatus.success
  }
}
