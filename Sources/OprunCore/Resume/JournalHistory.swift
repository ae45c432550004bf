/// Each job's last record across a manifest's journals, as `--resume` reads them.
///
/// The newest journal counts for every job it covered: all jobs, or for a run given target
/// jobs, those and their dependencies, and any job it has a line for. A job it covered but has no line for never finished
/// there (the run was killed, or stopped first) and has no record. Only a job a targeted run
/// did not cover takes its record from the journal before, and so on back to the first run
/// that covered every job: running `oprun jobs.yaml lint` between two runs does not make
/// `--resume` forget the rest.
public enum JournalHistory {
  /// The records, by job name, and the newest run they come from; nil when `nextNewest`
  /// gives no journal. `nextNewest` is called for one older journal at a time, only while
  /// some job is not yet covered.
  public static func lastRecords(
    for graph: JobGraph, nextNewest: () -> Journal?
  ) -> (records: [String: JournalRecord], run: String?)? {
    guard var journal = nextNewest() else { return nil }
    let newestRun = journal.header?.run
    var records: [String: JournalRecord] = [:]
    var covered = Set<String>()
    while true {
      let recorded = journal.recordsByJob
      let coverage = coveredJobs(by: journal.header?.targets ?? [], in: graph)
      // The common case, the newest run covering every job: its records are the answer.
      if coverage == nil, covered.isEmpty { return (recorded, newestRun) }
      for index in graph.jobs.indices {
        let name = graph.jobs[index].name
        // A job the journal has a line for was in that run, whatever today's graph says
        // the run's targets covered (a dependency may have been removed since).
        guard !covered.contains(name), coverage.map({ $0.contains(name) || recorded[name] != nil }) ?? true else {
          continue
        }
        covered.insert(name)
        if let record = recorded[name] { records[name] = record }
      }
      guard covered.count < graph.jobs.count, let older = nextNewest() else { break }
      journal = older
    }
    return (records, newestRun)
  }

  /// The names of the jobs a run given `targets` covered; nil for every job (no targets,
  /// or a target this graph does not have, which cannot be told apart safely).
  static func coveredJobs(by targets: [String], in graph: JobGraph) -> Set<String>? {
    guard !targets.isEmpty, let selection = try? graph.restricted(to: targets) else { return nil }
    return Set(selection.jobs.map { $0.name })
  }
}
