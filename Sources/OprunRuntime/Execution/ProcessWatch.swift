import Glibc
import OprunCore

/// One child as the event loop sees it: a pidfd and up to two output readers.
///
/// Lives as long as the loop watches one of its descriptors; the loop's
/// callbacks hold it, it holds the loop unowned. Once the child has exited, a
/// pipe that something it left running still holds stays read, and the watch
/// is in `leftovers` until that pipe closes.
final class ProcessWatch {
  private let process: SpawnedProcess
  private let readers: [OutputReader]
  private var onExit: ((Termination, ResourceUsage) -> Void)?
  private var pidfdIsOpen = true
  private unowned let loop: EventLoop
  private let leftovers: LeftoverOutput?

  init(
    _ process: SpawnedProcess, framing: OutputFraming, secrets: SecretPatterns? = nil, loop: EventLoop,
    leftovers: LeftoverOutput?,
    onOutput: @escaping OutputHandler, onExit: @escaping (Termination, ResourceUsage) -> Void
  ) {
    self.process = process
    self.loop = loop
    self.leftovers = leftovers
    self.onExit = onExit
    let pipes: [(Int32?, OutputStream)] = [(process.stdout, .stdout), (process.stderr, .stderr)]
    readers = pipes.compactMap { fd, stream in
      fd.map { OutputReader(fd: $0, stream: stream, framing: framing, secrets: secrets, handler: onOutput) }
    }
  }

  deinit {
    if pidfdIsOpen { close(process.pidfd) }
  }

  func start() {
    loop.watch(fd: process.pidfd) { [self] in pidfdReadable() }
    for reader in readers {
      loop.watch(fd: reader.fd, .jobOutput) { [self, reader] in readable(reader) }
    }
  }

  /// Reads each pipe still open a last time and closes it (the run is over).
  func readLastAndClose() {
    for reader in readers where !reader.isClosed {
      loop.unwatch(fd: reader.fd)
      reader.readLastAndClose(using: loop)
    }
  }

  private func readable(_ reader: OutputReader) {
    if reader.readAvailable(using: loop) { finish(reader) }
  }

  private func finish(_ reader: OutputReader) {
    loop.unwatch(fd: reader.fd)
    reader.finish()
    if !pidfdIsOpen, readers.allSatisfy(\.isClosed) { leftovers?.remove(self) }
  }

  private func pidfdReadable() {
    guard let (termination, usage) = reap() else { return }
    loop.unwatch(fd: process.pidfd)
    close(process.pidfd)
    pidfdIsOpen = false
    var holdsAPipe = false
    for reader in readers where !reader.isClosed {
      if reader.drainForExit(using: loop) { finish(reader) } else { holdsAPipe = true }
    }
    if holdsAPipe { leftovers?.add(self) }
    if process.holdsTerminal { Terminal.reclaimForeground() }
    let onExit = self.onExit
    self.onExit = nil
    onExit?(termination, usage)
  }

  /// The child's termination and what it used, or nil if it has not ended after all. A
  /// status taken by someone else (ECHILD: never by oprun, which waits for no other pid) is
  /// unknown, and reported as exit status 255, having used nothing known. `wait4` is
  /// `waitpid` with the kernel's accounting: the same one system call.
  private func reap() -> (Termination, ResourceUsage)? {
    var status: Int32 = 0
    var accounting = rusage()
    while true {
      let result = wait4(process.pid, &status, WNOHANG, &accounting)
      if result == process.pid { return (Termination(waitStatus: status), ResourceUsage(accounting)) }
      if result == 0 { return nil }
      if errno != EINTR { return (.exited(255), ResourceUsage(cpuSeconds: 0, peakMemory: 0, source: .process)) }
    }
  }
}
