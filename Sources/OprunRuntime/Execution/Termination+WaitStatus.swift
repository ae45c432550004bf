import OprunCore

extension Termination {
  /// Decodes a `waitpid` status of a process that has ended (not stopped).
  init(waitStatus status: Int32) {
    let signal = status & 0x7F
    self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
  }
}
