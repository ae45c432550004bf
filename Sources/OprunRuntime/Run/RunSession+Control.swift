import Glibc

/// The run's control channel (SPEC §8), opened before the run starts so that it answers
/// before the first job does.
extension RunSession {
  /// The channel of this run, its recorder observing `driver` from the first event on; or,
  /// when there can be none, the warning to give (the run goes on without one).
  func openControlChannel(driver: RunDriver, identity: RunIdentity) -> (channel: ControlChannel?, warning: String?) {
    var description = RunDescription(
      pid: identity.pid, run: identity.id, manifest: identity.manifestPath, started: identity.started,
      targets: configuration.targets, outputMode: configuration.outputMode, verbosity: configuration.verbosity,
      githubActions: getenv("GITHUB_ACTIONS").map { String(cString: $0) } == "true")
    description.variables = configuration.variables
    switch ControlChannel.open(graph: graph, loop: loop, description: description, apply: { driver.apply($0) }) {
    case .success(let channel):
      driver.addObserver(channel.recorder)
      return (channel, nil)
    case .failure(let problem):
      return (nil, "no control channel for this run: \(problem)")
    }
  }
}
