import COprunSystem
import Glibc

/// The pipes a child writes its output to: close-on-exec both ends, the read ends
/// non-blocking. One pipe serves both streams when they are merged (as ninja does: one
/// pipe less per job, and the two streams keep the order the child wrote them in).
struct OutputPipes {
  struct Pipe {
    var read: Int32
    var write: Int32
  }

  let stdout: Pipe
  /// Nil when standard error goes down the `stdout` pipe.
  let stderr: Pipe?

  init(mergingStandardError merged: Bool) throws(SpawnError) {
    stdout = try Self.makePipe()
    guard !merged else {
      stderr = nil
      return
    }
    do {
      stderr = try Self.makePipe()
    } catch {
      close(stdout.read)
      close(stdout.write)
      throw error
    }
  }

  /// The descriptor the child's standard error is to become.
  var stderrWriteEnd: Int32 { stderr?.write ?? stdout.write }

  private static func makePipe() throws(SpawnError) -> Pipe {
    var fds: [Int32] = [-1, -1]
    guard oprun_pipe_cloexec(&fds, 1) == 0 else { throw .system(SystemError("pipe2")) }
    return Pipe(read: fds[0], write: fds[1])
  }

  func closeWriteEnds() {
    close(stdout.write)
    if let stderr { close(stderr.write) }
  }

  func closeReadEnds() {
    close(stdout.read)
    if let stderr { close(stderr.read) }
  }

  func closeAll() {
    closeWriteEnds()
    closeReadEnds()
  }
}
