/// Gathers changed paths until they have been quiet for a delay (SPEC §13's `--watch-delay`):
/// a burst of saves becomes one batch. Times are a clock's readings in seconds, given by the
/// caller.
public struct ChangeDebounce: Sendable {
  /// How long nothing may change before the batch is due.
  public let delay: Double
  /// Invariant: empty exactly when `lastChange` is nil.
  private var pending: [String] = []
  private var seen: Set<String> = []
  private var lastChange: Double?

  public init(delay: Double) { self.delay = delay }

  /// Adds `paths` changed at `time` (each path once in the batch) and restarts the quiet period.
  public mutating func note(_ paths: [String], at time: Double) {
    for path in paths where seen.insert(path).inserted { pending.append(path) }
    if !pending.isEmpty { lastChange = time }
  }

  /// When the batch is due, if one is gathering.
  public var deadline: Double? { lastChange.map { $0 + delay } }

  /// The batch, in the order first seen, once `delay` has passed since its last change; it
  /// starts a new one. Nil while changes are not quiet yet, or none came.
  public mutating func takeIfQuiet(at time: Double) -> [String]? {
    guard let deadline, time >= deadline else { return nil }
    defer {
      pending = []
      seen = []
      lastChange = nil
    }
    return pending
  }
}
