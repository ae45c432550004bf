import Glibc

/// Which run this is, as `oprun ctl status` and `list` show it (SPEC §8): its id, its
/// manifest, when it started and the process that runs it.
public struct RunIdentity: Sendable, Equatable {
  /// The RUN-ID (SPEC §9).
  public var id: String
  /// The manifest's absolute path.
  public var manifestPath: String
  /// When the run started, as Unix time in seconds.
  public var started: Double
  /// oprun's process id.
  public var pid: Int32

  public init(id: String, manifestPath: String, started: Double, pid: Int32) {
    self.id = id
    self.manifestPath = manifestPath
    self.started = started
    self.pid = pid
  }

  /// This process's run `id` of the manifest at `path` (as given), starting now.
  static func starting(id: String, manifestPath path: String) -> RunIdentity {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let started = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    return RunIdentity(id: id, manifestPath: AbsolutePath.of(path), started: started, pid: getpid())
  }

}
