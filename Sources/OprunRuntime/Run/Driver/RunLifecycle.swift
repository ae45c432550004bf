import OprunCore

/// The driver's part that knows where the run is in its life: not begun, running, being
/// cancelled, everything killed, ended.
///
/// Invariants: `identity` is set once, when the run begins, and `hasAnnouncedEnd` once, after
/// `run-finished`; `endingSignal` is set by the first cancelling command and never changes;
/// `killedEverything` only follows it.
struct RunLifecycle {
  /// Which run this is; set when it begins.
  private(set) var identity: RunIdentity?
  /// The signal the run ends by, from the first cancelling command.
  private(set) var endingSignal: Int32?
  /// A second cancelling command killed everything: no completion starts any more.
  private(set) var killedEverything = false
  /// `run-finished` has been announced: nothing more is published, control requests are refused.
  private(set) var hasAnnouncedEnd = false

  mutating func begin(_ run: RunIdentity) {
    precondition(identity == nil, "a run begins once")
    identity = run
  }

  /// What a cancelling command does now.
  enum Cancelling {
    /// The first: every queue is cancelled, and the run will end by the signal.
    case cancelQueues
    /// A second: everything the run has running dies now.
    case killEverything
  }

  mutating func cancel(endingSignal signal: Int32) -> Cancelling {
    guard endingSignal == nil else {
      killedEverything = true
      return .killEverything
    }
    endingSignal = signal
    return .cancelQueues
  }

  mutating func announceEnd() {
    hasAnnouncedEnd = true
  }

  /// Between `run-started` and `run-finished`, the only time events are published for a
  /// control request.
  var isInProgress: Bool { identity != nil && !hasAnnouncedEnd }
}
