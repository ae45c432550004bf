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
  let environment: [String]

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
