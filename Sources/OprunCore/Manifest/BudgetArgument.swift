/// `cpus=N,memory=SIZE`, either part, as `--budget` and `oprun ctl budget` take it (SPEC §12).
public enum BudgetArgument {
  /// The parts given, or why `text` is not a budget.
  public static func parse(_ text: String) -> Result<ResourceNeeds, BudgetArgumentError> {
    var parts = ResourceNeeds()
    guard !text.isEmpty else { return .failure(BudgetArgumentError(shape(of: text))) }
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard pair.count == 2 else { return .failure(BudgetArgumentError(shape(of: text))) }
      let value = String(pair[1])
      switch pair[0] {
      case "cpus" where parts.cpus == nil:
        guard let cpus = Int(value), cpus >= 1 else {
          return .failure(BudgetArgumentError("cpus must be a positive whole number like 1, 2 or 8, found '\(value)'"))
        }
        parts.cpus = cpus
      case "memory" where parts.memory == nil:
        guard let memory = ByteSize.bytes(value) else {
          return .failure(BudgetArgumentError("memory must be \(ByteSize.forms), found '\(value)'"))
        }
        parts.memory = memory
      default:
        return .failure(BudgetArgumentError(shape(of: text)))
      }
    }
    return .success(parts)
  }

  private static func shape(of text: String) -> String {
    "expected cpus=N,memory=SIZE (either part, each once), found '\(text)'"
  }
}

/// Why a `--budget` or `ctl budget` argument is not a budget, in words.
public struct BudgetArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String

  public init(_ description: String) {
    self.description = description
  }
}
