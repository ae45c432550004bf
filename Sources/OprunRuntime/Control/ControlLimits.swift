/// What the control channel lets a client take (SPEC §8): every client is bounded in the
/// memory it holds and the time it keeps a connection, so that none can stall or sink a run.
public struct ControlLimits: Sendable {
  /// Seconds a client has to send its whole request line: 10. A script sends it at once;
  /// a client that connects and says nothing, or trickles, is answered with an error then.
  public var requestTimeout: Double = 10
  /// Seconds a client has to take its answer while the run goes on: 10.
  public var answerTimeout: Double = 10
  /// Connections at most that are not watching (each holds up to a request line, 64 KiB):
  /// 64. Further ones are answered `busy` and closed at once.
  public var pendingConnections = 64
  /// How far a watcher may fall behind the run before it is dropped: 8 MiB (SPEC §8).
  public var watchLag = 8 << 20
  /// Bytes of history kept for watchers, at most: 1 GiB (on disk, not in memory). Past it,
  /// watchers are dropped and `watch` is refused; the run goes on.
  public var historyLimit = WatchHistory.defaultLimit
  /// Bytes of job output kept in the history while no watcher has attached: 64 MiB. Most
  /// runs are never watched, and a run printing gigabytes would otherwise copy them all to
  /// a temporary file for no one. Past it, until a watcher attaches, output is counted, not
  /// kept: a late watcher reads `output-skipped` {`job`, `lines`, `bytes`} where it was left
  /// out. Every other event is always kept; once a watcher has attached, all output is.
  public var unwatchedOutputLimit = 64 << 20
  /// Bytes of history handed to a watcher's socket at a time: 64 KiB, also about what a
  /// watcher holds in memory.
  public var watchChunk = 64 << 10
  /// Seconds accepting pauses when oprun is out of descriptors, rather than spin: 0.1.
  public var acceptPause: Double = 0.1

  public init() {}
}
