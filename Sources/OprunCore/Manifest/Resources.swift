/// A `resources` or `budget` mapping as written (SPEC §12): each key with where it is
/// written, nil when it is not.
public struct ResourceSpec: Sendable, Equatable {
  /// Whole CPUs, at least 1.
  public var cpus: Located<Int>?
  /// Bytes, at least 1.
  public var memory: Located<Int>?

  public init(cpus: Located<Int>? = nil, memory: Located<Int>? = nil) {
    self.cpus = cpus
    self.memory = memory
  }

  /// This mapping's keys, and `fallback`'s where this one does not write them: a job's
  /// `resources` over its queue's over `defaults`, one key at a time.
  public func over(_ fallback: ResourceSpec) -> ResourceSpec {
    ResourceSpec(cpus: cpus ?? fallback.cpus, memory: memory ?? fallback.memory)
  }

  /// The amounts without their locations.
  // Never inlined: inlined where a job node is borrowed, Swift 6.3.1's optimizer fails its own
  // ownership check (CopyPropagation) and stops the release build.
  @inline(never)
  public var amounts: ResourceNeeds { ResourceNeeds(cpus: cpus?.value, memory: memory?.value) }
}

/// What a job needs of the machine, or a budget's parts as given: each amount when it is
/// declared. A job that declares neither needs nothing and is not counted against the
/// budget; one that declares one of them is counted for that one alone.
public struct ResourceNeeds: Sendable, Equatable, Hashable {
  /// Whole CPUs, at least 1.
  public var cpus: Int?
  /// Bytes, at least 1.
  public var memory: Int?

  public init(cpus: Int? = nil, memory: Int? = nil) {
    self.cpus = cpus
    self.memory = memory
  }

  /// Whether it declares anything to count.
  public var declaresAny: Bool { cpus != nil || memory != nil }

  /// `4 CPUs and 2 GiB`, `1 CPU`, `512 MiB`: the declared amounts as a person reads them.
  public var description: String {
    let parts = [cpus.map { counted($0, "CPU") }, memory.map { MemoryText.text(bytes: $0) }].compactMap { $0 }
    return parts.isEmpty ? "nothing" : parts.joined(separator: " and ")
  }
}

/// What a run may use at once (SPEC §12): the sum of running jobs' needs never passes it.
public struct ResourceBudget: Sendable, Equatable, Hashable {
  public var cpus: Int
  /// Bytes.
  public var memory: Int

  public init(cpus: Int, memory: Int) {
    self.cpus = cpus
    self.memory = memory
  }

  /// This budget with the parts `overrides` gives in their place.
  public func overridden(by overrides: ResourceNeeds) -> ResourceBudget {
    ResourceBudget(cpus: overrides.cpus ?? cpus, memory: overrides.memory ?? memory)
  }

  /// `cpus=8,memory=16 GiB`: as `--budget` and `ctl budget` write it, sizes made readable.
  public var description: String { "cpus=\(cpus),memory=\(MemoryText.text(bytes: memory))" }

  /// The parts of `needs` this budget cannot hold even when nothing else runs, as a
  /// person reads them (`4 CPUs`, `6 GiB`); empty when it fits.
  public func excess(of needs: ResourceNeeds) -> [String] {
    var parts: [String] = []
    if let cpus = needs.cpus, cpus > self.cpus { parts.append("\(counted(cpus, "CPU")) (budget \(self.cpus))") }
    if let memory = needs.memory, memory > self.memory {
      parts.append("\(MemoryText.text(bytes: memory)) of memory (budget \(MemoryText.text(bytes: self.memory)))")
    }
    return parts
  }
}
