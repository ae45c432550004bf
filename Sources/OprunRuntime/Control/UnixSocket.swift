import COprunSystem
import Glibc

/// Unix-domain stream sockets by path: the control channel's listener and its clients.
enum UnixSocket {
  /// What connecting to a socket path found.
  enum Connection {
    case connected(Int32)
    /// A socket file nobody listens on (`ECONNREFUSED`): what a killed run leaves.
    case stale
    /// No such file (`ENOENT`): the run has ended.
    case missing
    /// Any other failure, with its `errno` (`EAGAIN`: a listener whose backlog is full).
    case failed(Int32)
  }

  /// Connects to `path`; a non-blocking connect never waits for a busy listener.
  static func connect(_ path: String, nonblocking: Bool) -> Connection {
    let fd = oprun_unix_connect(path, nonblocking ? 1 : 0)
    if fd >= 0 { return .connected(fd) }
    switch errno {
    case ECONNREFUSED: return .stale
    case ENOENT: return .missing
    default: return .failed(errno)
    }
  }

  /// Whether `path` is a socket file nobody listens on, checked by connecting.
  static func isStale(_ path: String) -> Bool {
    switch connect(path, nonblocking: true) {
    case .connected(let fd):
      close(fd)
      return false
    case .stale:
      return true
    case .missing, .failed:
      return false
    }
  }

  /// A non-blocking socket listening at `path`, mode 0600. A stale socket file there (a
  /// killed run's) is removed and replaced; a live one is left alone. The socket is made
  /// with the process's umask and narrowed right after; its folder, 0700, keeps everyone
  /// else out meanwhile (changing the umask instead would change it for the whole process).
  static func listen(at path: String, backlog: Int32) -> Result<Int32, SystemError> {
    var fd = oprun_unix_listen(path, backlog)
    if fd < 0, errno == EADDRINUSE, isStale(path), isSocketFile(path) {
      unlink(path)
      fd = oprun_unix_listen(path, backlog)
    }
    guard fd >= 0 else { return .failure(SystemError("bind '\(path)'")) }
    guard chmod(path, 0o600) == 0 else {
      let failure = SystemError("chmod '\(path)'")
      close(fd)
      unlink(path)
      return .failure(failure)
    }
    return .success(fd)
  }

  /// The file system identity of `path` itself (`lstat`), to recognise it later.
  static func identity(of path: String) -> FileIdentity? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
  }

  /// Removes `path` if it is still the file `identity` names (not one put in its place).
  static func remove(_ path: String, ifStill identity: FileIdentity?) {
    guard let identity, self.identity(of: path) == identity else { return }
    unlink(path)
  }

  static func isSocketFile(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
  }

  /// A waiting connection, non-blocking and close-on-exec; -1 with `errno` set when none.
  static func accept(_ listener: Int32) -> Int32 {
    oprun_accept_nonblocking(listener)
  }

  /// The uid and pid of the peer of a connected socket (SO_PEERCRED).
  static func peer(of fd: Int32) -> (uid: UInt32, pid: Int32)? {
    var uid: uid_t = 0
    var pid: pid_t = 0
    guard oprun_peer_credentials(fd, &uid, &pid) == 0 else { return nil }
    return (uid, pid)
  }

  /// Sends what the socket takes now of `bytes`, never waiting, never raising SIGPIPE.
  @discardableResult
  static func sendNow(_ fd: Int32, _ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
  }

  /// Sends `bytes` now, behind whatever the peer has not read, without waiting: a full socket
  /// has its send buffer raised to the largest a user may set (Linux doubles the value asked
  /// for, up to twice `net.core.wmem_max`, above the default a socket starts with), which
  /// makes room for a last line however little the peer reads. Returns how many bytes went
  /// (a write of up to half the buffer goes whole or not at all).
  @discardableResult
  static func sendLast(_ fd: Int32, _ bytes: [UInt8]) -> Int {
    var sent = 0
    var raised = false
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
      }
      if count > 0 {
        sent += count
      } else if count < 0, errno == EINTR {
        continue
      } else if count < 0, errno == EAGAIN, !raised {
        raised = true
        var size = Int32.max
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      } else {
        return sent
      }
    }
    return sent
  }
}

/// A file's device and inode.
struct FileIdentity: Equatable {
  var device: UInt64
  var inode: UInt64
}
