import OprunCore

extension EventLoop {
  /// Watches a spawned child until it has exited, taking over its descriptors.
  ///
  /// `onOutput` receives its stdout and stderr as `framing` says; when the
  /// process exits, the bytes already in its pipes are read (to that point
  /// only: a grandchild holding a pipe open does not delay anything), a last
  /// partial line is delivered, and then `onExit` runs, once. What a leftover
  /// grandchild writes later still reaches `onOutput`, until it closes the pipe
  /// or `leftovers` reads the pipe a last time and closes it
  /// (``LeftoverOutput/readLastAndClose()``); reading on also keeps it from dying
  /// of SIGPIPE. A child holding the terminal's foreground gives it back to oprun
  /// before `onExit`, which also receives what the process used (``ResourceUsage``, from
  /// the kernel's accounting of it and the descendants it waited for). With `secrets`, the
  /// output is masked (SPEC §15) before it is framed, so that nothing downstream sees them.
  public func watchProcess(
    _ process: SpawnedProcess, output framing: OutputFraming = .lines, masking secrets: SecretPatterns? = nil,
    leftovers: LeftoverOutput? = nil,
    onOutput: @escaping OutputHandler, onExit: @escaping (Termination, ResourceUsage) -> Void
  ) {
    ProcessWatch(
      process, framing: framing, secrets: secrets, loop: self, leftovers: leftovers, onOutput: onOutput, onExit: onExit
    )
    .start()
  }

  /// ``watchProcess(_:output:leftovers:onOutput:onExit:)`` for a caller that wants only how
  /// the process ended.
  public func watchProcess(
    _ process: SpawnedProcess, output framing: OutputFraming = .lines, leftovers: LeftoverOutput? = nil,
    onOutput: @escaping OutputHandler, onExit: @escaping (Termination) -> Void
  ) {
    watchProcess(
      process, output: framing, leftovers: leftovers, onOutput: onOutput,
      onExit: { termination, _ in onExit(termination) })
  }
}
