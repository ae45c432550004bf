import Glibc
import OprunCore

/// Runs one Slurm client command (`sbatch`, `squeue`, `scancel`, `scontrol`) as its own
/// program, directly (no shell), with oprun's environment.
struct SlurmTool {
  /// What a finished command said.
  struct Answer {
    var status: Termination
    var output: String
    var errors: String

    var succeeded: Bool { status == .exited(0) }
    /// Its error output, or its output when it wrote no error, on one line.
    var message: String {
      let text = errors.isEmpty ? output : errors
      return text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingSpaces
    }
  }

  let spawner: Spawner
  let environment: SpawnEnvironment

  /// The request to run `arguments` (the program first, found on `PATH`).
  func request(_ arguments: [String]) -> SpawnRequest {
    SpawnRequest(
      command: arguments.joined(separator: " "), environment: environment, directArguments: arguments)
  }

  /// Runs `arguments` to its end, reading everything it writes; nil when the program could not
  /// start (the reason in `failure`).
  func run(_ arguments: [String]) -> Result<Answer, SpawnError> {
    switch spawner.spawn(request(arguments)) {
    case .failure(let error): return .failure(error)
    case .success(let process): return .success(Self.collect(process))
    }
  }

  /// How a command that a cancelling signal may cut short ended.
  enum Ending {
    case answered(Answer)
    /// SIGINT, SIGTERM or SIGHUP came first: the command was killed and reaped.
    case interrupted(by: Int32)
  }

  /// Runs `arguments` to its end as ``run(_:)`` does, but a cancelling signal to oprun
  /// (SIGINT, SIGTERM, SIGHUP; one oprun was started with ignored stays ignored) kills the
  /// command's process group at once, so that nothing oprun does before its run has begun
  /// outlives an interrupt. A failure when the program could not start.
  func runCancellably(_ arguments: [String]) -> Result<Ending, SpawnError> {
    let loop = EventLoop()
    var process: SpawnedProcess?
    var signalled: Int32?
    var status: Termination?
    // Called on the loop, so once the command has started. Once reaped, its group id may
    // belong to another process: the signal is only recorded.
    let cancel = { (signal: Int32) in
      guard signalled == nil else { return }
      signalled = signal
      if let process, status == nil { kill(-process.processGroup, SIGKILL) }
    }
    // Trapped before the command starts: a signal in between would end oprun and leave it running.
    let trap = try? SignalTrap(loop: loop, signals: [SIGINT, SIGTERM, SIGHUP], onSignal: cancel)
    defer { trap?.uninstall() }
    switch spawner.spawn(request(arguments)) {
    case .failure(let error): return .failure(error)
    case .success(let spawned): process = spawned
    }
    var output: [UInt8] = []
    var errors: [UInt8] = []
    loop.watchProcess(
      process!, output: .chunks,
      onOutput: { stream, bytes in
        if stream == .stdout { output.append(contentsOf: bytes) } else { errors.append(contentsOf: bytes) }
      },
      onExit: { status = $0 })
    loop.run { status != nil }
    // A signal that came as the command ended is still oprun's to honour.
    trap?.deliverRecorded()
    if let signalled { return .success(.interrupted(by: signalled)) }
    return .success(
      .answered(
        Answer(
          status: status!, output: String(decoding: output, as: UTF8.self),
          errors: String(decoding: errors, as: UTF8.self))))
  }

  /// Reads both pipes of `process` to their ends, then reaps it.
  private static func collect(_ process: SpawnedProcess) -> Answer {
    var buffers: [Int32: [UInt8]] = [:]
    var open = [process.stdout, process.stderr].compactMap { $0 }
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty {
      var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      if poll(&fds, nfds_t(fds.count), -1) < 0 {
        if errno == EINTR { continue }
        break
      }
      for entry in fds where entry.revents != 0 {
        let count = read(entry.fd, &chunk, chunk.count)
        if count > 0 {
          buffers[entry.fd, default: []].append(contentsOf: chunk[0..<count])
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
          open.removeAll { $0 == entry.fd }
          close(entry.fd)
        }
      }
    }
    var status: Int32 = 0
    while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
    close(process.pidfd)
    return Answer(
      status: Termination(waitStatus: status),
      output: String(decoding: buffers[process.stdout ?? -1] ?? [], as: UTF8.self),
      errors: String(decoding: buffers[process.stderr ?? -1] ?? [], as: UTF8.self))
  }
}

extension String {
  var trimmingSpaces: String {
    String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }
}
