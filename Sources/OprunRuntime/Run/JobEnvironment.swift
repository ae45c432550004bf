import Glibc
import OprunCore

/// The environments local commands start with: oprun's own, then what the driver sets
/// (the job's `env`, already merged with the manifest's, then the `OPRUN_*` variables); a
/// later entry replaces an earlier one of that name.
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

  /// oprun's environment with `overrides` set on top, later entries winning.
  func entries(with overrides: [EnvironmentEntry]) -> [String] {
    var entries = base
    var added: [Substring: Int] = [:]
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
