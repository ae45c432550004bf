import OprunCore

/// One command to start as a child process.
public struct SpawnRequest: Sendable, Equatable {
  /// Run as `shell -c command`.
  public var command: String
  /// The child's whole environment.
  public var environment: SpawnEnvironment
  /// The directory the child starts in; nil for oprun's own.
  public var workingDirectory: String?
  /// Niceness and I/O priority, applied before the command runs (see `QualityOfService.scheduling`).
  public var qos: QualityOfService
  /// Inherit oprun's standard input, output and error instead of /dev/null and
  /// pipes; when standard input is the terminal and oprun holds its foreground,
  /// the child's process group takes the foreground until it exits.
  public var interactive: Bool
  /// The shell that runs `command`.
  public var shell: String
  /// Standard error goes down the standard output pipe (delivered as `.stdout`), so that
  /// the two keep the order the child wrote them in and a job costs one pipe, not two.
  public var mergesStandardError: Bool
  /// The program and arguments to run without the shell (``DirectCommand``), looked up on the
  /// environment's `PATH`; the shell runs `command` when the lookup finds nothing to execute.
  /// Nil: `shell -c command`.
  public var directArguments: [String]?
  /// Open `cgroup.procs` files the child writes itself into before its command runs (its
  /// job's cgroup, SPEC §12); one it cannot join is passed over.
  public var cgroupJoining: [Int32] = []

  public init(
    command: String, environment: SpawnEnvironment, workingDirectory: String? = nil, qos: QualityOfService = .default,
    interactive: Bool = false, shell: String = "/bin/sh", mergesStandardError: Bool = false,
    directArguments: [String]? = nil
  ) {
    self.directArguments = directArguments
    self.command = command
    self.environment = environment
    self.workingDirectory = workingDirectory
    self.qos = qos
    self.interactive = interactive
    self.shell = shell
    self.mergesStandardError = mergesStandardError
  }
}

/// A started child: the leader of its own process group (pgid = pid).
///
/// The descriptors belong to whoever holds this value: `EventLoop.watchProcess`
/// takes them over and closes them.
public struct SpawnedProcess: Sendable, Equatable {
  public var pid: Int32
  /// Readable once the process has exited (pidfd_open); close-on-exec.
  public var pidfd: Int32
  /// Non-blocking, close-on-exec read ends of the child's stdout and stderr;
  /// nil for an interactive child.
  public var stdout: Int32?
  public var stderr: Int32?
  /// The child's group holds the terminal's foreground; it goes back to oprun
  /// when the child has exited.
  public var holdsTerminal: Bool

  /// The child's process group: its own pid.
  public var processGroup: Int32 { pid }
}
