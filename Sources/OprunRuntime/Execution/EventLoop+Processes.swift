import OprunCore

extension EventLoop {
  /// Watches a spawned child until it has exited, taking over its descriptors.
  ///
  /// `onOutput` receives its stdout and stderr as `framing` says; when the
  /// process exits, the bytes already in its pipes are read (to that point
  /// only: a grandchild holding a pipe open does not delay anything), a last
  /// partial line is delivered, and then `onExit` runs, once. No output
  /// callback follows it: what a leftover grandchild writes later is read and
  /// dropped until it closes the pipe (so it does not die of SIGPIPE).
  /// A child holding the terminal's foreground gives it back to oprun before `onExit`.
  public func watchProcess(
    _ process: SpawnedProcess, output framing: OutputFraming = .lines,
    onOutput: @escaping OutputHandler, onExit: @escaping (Termination) -> Void
  ) {
    ProcessWatch(process, framing: framing, loop: self, onOutput: onOutput, onExit: onExit).start()
  }
}
