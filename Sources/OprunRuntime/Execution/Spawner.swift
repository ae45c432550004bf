import COprunSystem
import Glibc
import OprunCore

/// Starts child processes the way every job's command starts: `shell -c
/// command` in a new process group, every signal at its default action, an
/// empty signal mask, standard input from /dev/null and output through pipes
/// (unless interactive), the QoS applied before the command runs.
///
/// Not thread-safe: use it from the event loop's thread.
public final class Spawner {
  /// oprun's niceness when the spawner was made; QoS offsets are relative to it.
  public let baseNiceness: Int32
  private var nullDevice: Int32 = -1
  private let workingFolder = ShellWorkingFolder()
  /// The `PATH` of the last direct spawn and the candidates it gave each program
  /// (``programPaths(of:environment:)``): jobs almost always share oprun's `PATH` and a
  /// few programs, so the `PATH` is split once rather than at every spawn. Invariant: every
  /// list in `byProgram` is what `path` gives; at most `cachedPrograms` of them.
  private var candidates: (path: String, byProgram: [String: [String]]) = ("", [:])
  private static let cachedPrograms = 256

  public init() {
    baseNiceness = currentNiceness()
  }

  deinit {
    if nullDevice >= 0 { close(nullDevice) }
  }

  /// Starts `request`; a failure leaves nothing running and nothing open.
  public func spawn(_ request: SpawnRequest) -> Result<SpawnedProcess, SpawnError> {
    Result { () throws(SpawnError) in try start(request, watchdog: nil) }
  }

  /// Starts `request`, its process announcing its group to `watchdog` (when there is one)
  /// before its command runs.
  func spawn(_ request: SpawnRequest, announcingTo watchdog: Watchdog?) -> Result<SpawnedProcess, SpawnError> {
    Result { () throws(SpawnError) in try start(request, watchdog: watchdog) }
  }

  private func start(_ request: SpawnRequest, watchdog: Watchdog?) throws(SpawnError) -> SpawnedProcess {
    let stdinFd = request.interactive ? -1 : try openNullDevice()
    let output = request.interactive ? nil : try OutputPipes(mergingStandardError: request.mergesStandardError)
    let takesTerminal = request.interactive && Terminal.oprunHoldsForeground
    let pid = try launch(request, stdin: stdinFd, output: output, takesTerminal: takesTerminal, watchdog: watchdog)
    output?.closeWriteEnds()
    let pidfd = oprun_pidfd_open(pid)
    guard pidfd >= 0 else {
      let error = SystemError("pidfd_open")
      kill(pid, SIGKILL)
      waitpid(pid, nil, 0)
      output?.closeReadEnds()
      throw .system(error)
    }
    return SpawnedProcess(
      pid: pid, pidfd: pidfd, stdout: output?.stdout.read, stderr: output?.stderr?.read,
      holdsTerminal: takesTerminal)
  }

  private func launch(
    _ request: SpawnRequest, stdin: Int32, output: OutputPipes?, takesTerminal: Bool, watchdog: Watchdog?
  ) throws(SpawnError) -> pid_t {
    let arguments = CStringArray([request.shell, "-c", request.command])
    let directPaths = request.directArguments.flatMap { programPaths(of: $0[0], environment: request.environment) }
    let direct = directPaths.map { (CStringArray($0), CStringArray(request.directArguments!)) }
    // Run without the shell, the command still sees the PWD the shell would have set.
    let environment =
      direct == nil
      ? request.environment : workingFolder.environment(request.environment, in: request.workingDirectory)
    let scheduling = request.qos.scheduling
    let niceness = min(max(baseNiceness + scheduling.nicenessOffset, -20), 19)
    var failure = oprun_spawn_failure()
    var announcement = watchdog?.announcement() ?? []
    var announced = -1
    let cgroupJoining = request.cgroupJoining
    let pid = environment.withPointers { environmentPointers in
      cgroupJoining.withUnsafeBufferPointer { cgroups in
        request.shell.withCString { shell in
          withOptionalCString(request.workingDirectory) { directory in
            announcement.withUnsafeMutableBufferPointer { announcementBytes in
              withUnsafeMutablePointer(to: &announced) { announcedCount in
                var plan = oprun_spawn_plan(
                  path: shell, argv: arguments.pointers, envp: environmentPointers, directory: directory,
                  stdin_fd: stdin, stdout_fd: output?.stdout.write ?? -1, stderr_fd: output?.stderrWriteEnd ?? -1,
                  set_nice: niceness != baseNiceness ? 1 : 0, nice: niceness,
                  ioprio: scheduling.ioPriority?.rawValue ?? 0, terminal_fd: takesTerminal ? STDIN_FILENO : -1,
                  announce_fd: watchdog?.channelDescriptor ?? -1, announcement: announcementBytes.baseAddress,
                  announcement_length: announcementBytes.count, announced: announcedCount,
                  direct_paths: direct?.0.pointers, direct_argv: direct?.1.pointers,
                  cgroup_fds: cgroups.baseAddress, cgroup_fd_count: Int32(cgroups.count))
                return oprun_spawn(&plan, &failure)
              }
            }
          }
        }
      }
    }
    withExtendedLifetime((arguments, direct)) {}
    watchdog?.announced(announcement, sent: announced, by: pid < 0 ? nil : pid)
    guard pid < 0 else { return pid }
    output?.closeAll()
    throw spawnError(failure, request)
  }

  /// Where the shell would look for `program`: itself when it names a path, else each folder
  /// of the environment's `PATH` in order (an empty entry is the working folder). Nil without
  /// a `PATH`: the shell's own default then decides, so the shell runs the command.
  static func programPaths(of program: String, environment: SpawnEnvironment) -> [String]? {
    if program.utf8.contains(UInt8(ascii: "/")) { return [program] }
    return environment.value(of: "PATH").map { programPaths(of: program, path: $0) }
  }

  private static func programPaths(of program: String, path: String) -> [String] {
    path.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { folder in
      folder.isEmpty ? program : String(decoding: folder, as: UTF8.self) + "/" + program
    }
  }

  /// ``programPaths(of:environment:)``, from the cache when `environment`'s `PATH` is the
  /// last one seen.
  private func programPaths(of program: String, environment: SpawnEnvironment) -> [String]? {
    if program.utf8.contains(UInt8(ascii: "/")) { return [program] }
    guard let path = environment.value(of: "PATH") else { return nil }
    if path != candidates.path || candidates.byProgram.count >= Self.cachedPrograms {
      candidates = (path, [:])
    }
    if let known = candidates.byProgram[program] { return known }
    let paths = Self.programPaths(of: program, path: path)
    candidates.byProgram[program] = paths
    return paths
  }

  private func spawnError(_ failure: oprun_spawn_failure, _ request: SpawnRequest) -> SpawnError {
    switch Int(failure.stage) {
    case Int(OPRUN_SPAWN_STAGE_DIRECTORY.rawValue):
      .directory(request.workingDirectory ?? ".", errno: failure.error)
    case Int(OPRUN_SPAWN_STAGE_EXEC.rawValue):
      .program(request.shell, errno: failure.error)
    case Int(OPRUN_SPAWN_STAGE_SETUP.rawValue):
      .system(SystemError("child setup", errno: failure.error))
    default:
      .system(SystemError("vfork", errno: failure.error))
    }
  }

  private func openNullDevice() throws(SpawnError) -> Int32 {
    if nullDevice < 0 {
      nullDevice = open("/dev/null", O_RDONLY | O_CLOEXEC)
      guard nullDevice >= 0 else { throw .system(SystemError("open /dev/null")) }
    }
    return nullDevice
  }
}

private func withOptionalCString<Result>(
  _ string: String?, _ body: (UnsafePointer<CChar>?) -> Result
) -> Result {
  guard let string else { return body(nil) }
  return string.withCString { body($0) }
}
