import COprunSystem
import Glibc

/// The two pipes a child writes its output to: close-on-exec both ends, the
/// read ends non-blocking.
struct OutputPipes {
  struct Pipe {
    var read: Int32
    var write: Int32
  }

  let stdout: Pipe
  let stderr: Pipe

  init() throws(SpawnError) {
    stdout = try Self.makePipe()
    do {
      stderr = try Self.makePipe()
    } catch {
      close(stdout.read)
      close(stdout.write)
      throw error
    }
  }

  private static func makePipe() throws(SpawnError) -> Pipe {
    var fds: [Int32] = [-1, -1]
    guard oprun_pipe_cloexec(&fds, 1) == 0 else { throw .system(SystemError("pipe2")) }
    return Pipe(read: fds[0], write: fds[1])
  }

  func closeWriteEnds() {
    close(stdout.write)
    close(stderr.write)
  }

  func closeReadEnds() {
    close(stdout.read)
    close(stderr.read)
  }

  func closeAll() {
    closeWriteEnds()
    closeReadEnds()
  }
}
