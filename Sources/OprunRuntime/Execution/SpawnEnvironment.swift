import Glibc
import OprunCore

/// A child's environment: entries many children share (oprun's own), made C strings once,
/// with the few of this child's set on top (its job's `env`, the `OPRUN_*` variables, the
/// `PWD` of a command run without the shell). Starting a job then copies the shared
/// entries' pointers, not their text: with a shell's usual forty variables, converting them
/// again for every job was a tenth of what oprun spent per trivial job.
public struct SpawnEnvironment: Sendable, Equatable, ExpressibleByArrayLiteral {
  private let shared: SharedEntries
  /// `NAME=value` entries on top of the shared ones, with their names; a later one replaces
  /// an earlier of its name.
  private var overrides: [(name: String, entry: String)] = []

  /// `entries` alone; a later entry replaces an earlier one of that name.
  public init(_ entries: [String]) {
    shared = SharedEntries(entries)
  }

  public init(arrayLiteral entries: String...) {
    self.init(entries)
  }

  /// oprun's own environment as `NAME=value` entries.
  public static func inherited() -> [String] {
    strings(of: environ)
  }

  /// The strings of a NULL-terminated array of C strings (an `envp`).
  static func strings(of pointers: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> [String] {
    var strings: [String] = []
    var cursor = pointers
    while let string = cursor.pointee {
      strings.append(String(cString: string))
      cursor += 1
    }
    return strings
  }

  /// This environment with each of `variables` set, a later one replacing an earlier of its name.
  func setting(_ variables: [EnvironmentEntry]) -> SpawnEnvironment {
    var result = self
    for variable in variables { result.overrides.append((variable.name, "\(variable.name)=\(variable.value)")) }
    return result
  }

  /// This environment with `entry` (`NAME=value`) set on top.
  func setting(entry: String) -> SpawnEnvironment {
    var result = self
    result.overrides.append((String(Self.name(of: entry)), entry))
    return result
  }

  /// The value `name` has, nil when unset. An inherited value is the same string each time,
  /// so comparing it with the last one asked for is quick.
  func value(of name: String) -> String? {
    if let override = overrides.last(where: { $0.name == name }) {
      return String(override.entry.utf8.dropFirst(name.utf8.count + 1))
    }
    return shared.values[name]
  }

  /// Every entry, one per name: the shared ones in their order, each replaced by a later
  /// one of its name, then the new names in the order they were first set.
  public var entries: [String] {
    var entries = shared.entries
    var added: [String: Int] = [:]
    for (name, entry) in overrides {
      if let index = shared.positions[name] ?? added[name] {
        entries[index] = entry
      } else {
        added[name] = entries.count
        entries.append(entry)
      }
    }
    return entries
  }

  /// Calls `body` with ``entries`` as a NULL-terminated `envp`, valid during the call.
  func withPointers<Result>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
    let base = shared.entries.count
    let own = CStringArray(overrides.map(\.entry))
    let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: base + overrides.count + 1)
    defer { pointers.deallocate() }
    pointers.update(from: shared.strings.pointers, count: base)
    var count = base
    var added: [String] = []
    for (index, (name, _)) in overrides.enumerated() {
      if let position = shared.positions[name] {
        pointers[position] = own.pointers[index]
      } else if let position = added.firstIndex(of: name) {
        pointers[base + position] = own.pointers[index]
      } else {
        added.append(name)
        pointers[count] = own.pointers[index]
        count += 1
      }
    }
    pointers[count] = nil
    return withExtendedLifetime(own) { body(pointers) }
  }

  public static func == (lhs: SpawnEnvironment, rhs: SpawnEnvironment) -> Bool {
    lhs.entries == rhs.entries
  }

  private static func name(of entry: String) -> Substring {
    entry.prefix { $0 != "=" }
  }

  /// Entries one per name (the first place a name appears, its last value), their C strings,
  /// where each name stands and what it holds. Never changed once made, so children share it.
  private final class SharedEntries: Sendable {
    let entries: [String]
    let positions: [String: Int]
    let values: [String: String]
    nonisolated(unsafe) let strings: CStringArray

    init(_ inherited: [String]) {
      var entries: [String] = []
      var positions: [String: Int] = [:]
      var values: [String: String] = [:]
      for entry in inherited {
        let name = String(SpawnEnvironment.name(of: entry))
        values[name] = String(entry.utf8.dropFirst(name.utf8.count + 1)) ?? ""
        if let index = positions[name] {
          entries[index] = entry
        } else {
          positions[name] = entries.count
          entries.append(entry)
        }
      }
      self.entries = entries
      self.positions = positions
      self.values = values
      strings = CStringArray(entries)
    }
  }
}
