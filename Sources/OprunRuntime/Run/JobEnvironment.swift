import Glibc
import OprunCore

/// The environments jobs start with: oprun's own, then the job's `env` (which the graph
/// already merged with the manifest's), then the `OPRUN_*` variables; a later entry
/// replaces an earlier one of that name.
struct JobEnvironment {
  /// oprun's environment as `NAME=value` entries, one per name.
  private let base: [String]
  /// Where each name stands in `base`.
  private let positions: [Substring: Int]

  init(inherited: [String]) {
    var entries: [String] = []
    var positions: [Substring: Int] = [:]
    for entry in inherited {
      let name = entry.prefix { $0 != "=" }
      if let index = positions[name] {
        entries[index] = entry
      } else {
        positions[name] = entries.count
        entries.append(entry)
      }
    }
    self.base = entries
    self.positions = positions
  }

  /// The environment of one command of `job`, plus `extra` (completion variables).
  func entries(for job: JobNode, queue: String, attempt: Int, extra: [EnvironmentEntry] = []) -> [String] {
    var entries = base
    var added: [Substring: Int] = [:]
    let overrides =
      job.env + [
        EnvironmentEntry("OPRUN_JOB", job.name), EnvironmentEntry("OPRUN_QUEUE", queue),
        EnvironmentEntry("OPRUN_ATTEMPT", String(attempt)),
      ] + extra
    for variable in overrides {
      let entry = "\(variable.name)=\(variable.value)"
      let name = Substring(variable.name)
      if let index = positions[name] ?? added[name] {
        entries[index] = entry
      } else {
        added[name] = entries.count
        entries.append(entry)
      }
    }
    return entries
  }

  /// oprun's own environment as `NAME=value` entries.
  static func inherited() -> [String] {
    var entries: [String] = []
    var pointer = environ
    while let entry = pointer.pointee {
      entries.append(String(cString: entry))
      pointer += 1
    }
    return entries
  }
}
