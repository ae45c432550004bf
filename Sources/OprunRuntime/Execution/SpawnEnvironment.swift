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
    return shared.names[name]?.value
  }

  /// Every entry, one per name: the shared ones in their order, each replaced by a later
  /// one of its name, then the new names in the order they were first set.
  public var entries: [String] {
    let (positions, count) = placements()
    var entries = shared.entries
    entries.append(contentsOf: repeatElement("", count: count - entries.count))
    for (position, override) in zip(positions, overrides) { entries[position] = override.entry }
    return entries
  }

  /// Calls `body` with ``entries`` as a NULL-terminated `envp`, valid during the call.
  func withPointers<Result>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
    let (positions, count) = placements()
    let own = CStringArray(overrides.map(\.entry))
    let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: count + 1)
    defer { pointers.deallocate() }
    pointers.update(from: shared.strings.pointers, count: shared.entries.count)
    for (index, position) in positions.enumerated() { pointers[position] = own.pointers[index] }
    pointers[count] = nil
    return withExtendedLifetime(own) { body(pointers) }
  }

  /// Where each override goes among ``entries`` (the place of the shared entry of its name,
  /// else of the first override of its name, after the shared ones), and how many there are.
  private func placements() -> (positions: [Int], count: Int) {
    let base = shared.entries.count
    var positions: [Int] = []
    positions.reserveCapacity(overrides.count)
    var added: [String] = []
    for (name, _) in overrides {
      if let position = shared.names[name]?.position {
        positions.append(position)
      } else if let index = added.firstIndex(of: name) {
        positions.append(base + index)
      } else {
        positions.append(base + added.count)
        added.append(name)
      }
    }
    return (positions, base + added.count)
  }

  public static func == (lhs: SpawnEnvironment, rhs: SpawnEnvironment) -> Bool {
    lhs.entries == rhs.entries
  }

  private static func name(of entry: String) -> Substring {
    entry[..<(entry.utf8.firstIndex(of: UInt8(ascii: "=")) ?? entry.endIndex)]
  }

  /// Entries one per name (the first place a name appears, its last value), their C strings,
  /// and where each name stands with what it holds. Never changed once made, so children share it.
  private final class SharedEntries: Sendable {
    let entries: [String]
    let names: [String: (position: Int, value: String)]
    nonisolated(unsafe) let strings: CStringArray

    init(_ inherited: [String]) {
      var entries: [String] = []
      var names: [String: (position: Int, value: String)] = [:]
      names.reserveCapacity(inherited.count)
      for entry in inherited {
        let name = String(SpawnEnvironment.name(of: entry))
        let value = String(entry.utf8.dropFirst(name.utf8.count + 1)) ?? ""
        if let known = names[name] {
          entries[known.position] = entry
          names[name] = (known.position, value)
        } else {
          names[name] = (entries.count, value)
          entries.append(entry)
        }
      }
      self.entries = entries
      self.names = names
      strings = CStringArray(entries)
    }
  }
}
