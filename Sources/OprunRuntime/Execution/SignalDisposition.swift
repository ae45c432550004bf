import COprunSystem

/// What a signal is set to do in this process.
public enum SignalDisposition: Sendable, Equatable {
  case `default`
  case ignored
  /// The trap's recording handler.
  case recorded
  /// Some other handler.
  case handled

  /// The current disposition of `signal`.
  public init(of signal: Int32) {
    switch oprun_signal_disposition(signal) {
    case Int32(OPRUN_SIGNAL_DEFAULT.rawValue): self = .default
    case Int32(OPRUN_SIGNAL_IGNORED.rawValue): self = .ignored
    case Int32(OPRUN_SIGNAL_RECORDED.rawValue): self = .recorded
    default: self = .handled
    }
  }
}
