import OprunCore

/// What every `sbatch` submission of a `--backend slurm` run adds, from the command line.
public struct SlurmOptions: Sendable, Equatable {
  /// `--partition`; nil: the cluster's default.
  public var partition: String?
  /// `--account`; nil: the user's default.
  public var account: String?
  /// The Slurm QoS each oprun QoS class is submitted with (`--qos`); a class not mapped is
  /// submitted with none.
  public var qos: [QualityOfService: String] = [:]
  /// More `sbatch` arguments, as given, before oprun's own.
  public var extraArguments: [String] = []

  public init() {}

  /// These options over the manifest's `slurm` section: a flag wins over the key it matches;
  /// QoS mappings are merged, extra arguments the section's first.
  func over(_ section: SlurmSection?) -> SlurmOptions {
    guard let section else { return self }
    var merged = self
    merged.partition = partition ?? section.partition
    merged.account = account ?? section.account
    merged.qos = section.qos.merging(qos) { _, flag in flag }
    merged.extraArguments = section.sbatchArguments + extraArguments
    return merged
  }
}

extension Priority {
  /// The `sbatch --nice` of a job in this band: the highest band 0, each band below it 40
  /// more (never negative: only an operator may lower a job's nice value).
  var slurmNice: Int { (Priority.veryHigh.rawValue - rawValue) * 10 }
}
