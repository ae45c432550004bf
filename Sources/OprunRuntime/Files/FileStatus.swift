import Glibc
import OprunCore

/// What `stat` says of a file that tells whether it may have changed since it was hashed.
struct FileStatus: Equatable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modified: Timestamp
  var changed: Timestamp
  /// `S_IFMT` bits of the mode.
  var type: UInt32
  /// How many names the file has (`st_nlink`); 1 where it is not known (a saved entry).
  var links: UInt64 = 1

  init(_ status: stat) {
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
    size = Int64(status.st_size)
    modified = Timestamp(status.st_mtim)
    changed = Timestamp(status.st_ctim)
    type = UInt32(status.st_mode) & UInt32(S_IFMT)
    links = UInt64(status.st_nlink)
  }

  /// Nothing known of it: of no kind, so recorded as what cannot be read.
  static let unknown = FileStatus(
    device: 0, inode: 0, size: 0, modified: Timestamp(seconds: 0, nanoseconds: 0),
    changed: Timestamp(seconds: 0, nanoseconds: 0), type: 0)

  init(device: UInt64, inode: UInt64, size: Int64, modified: Timestamp, changed: Timestamp, type: UInt32) {
    self.device = device
    self.inode = inode
    self.size = size
    self.modified = modified
    self.changed = changed
    self.type = type
  }

  /// Whether this is the file `other` was, with the size and modification time it had: no
  /// write since that its `stat` shows, the change time aside (a rename sets it).
  func isUnwritten(since other: FileStatus) -> Bool {
    device == other.device && inode == other.inode && size == other.size && modified == other.modified
  }

  var isFolder: Bool { type == UInt32(S_IFDIR) }
  var isLink: Bool { type == UInt32(S_IFLNK) }
  var isRegular: Bool { type == UInt32(S_IFREG) }

  /// The kind a snapshot records for it, when it is no folder.
  var kind: FileKind {
    switch type {
    case UInt32(S_IFREG): .file
    case UInt32(S_IFLNK): .link
    case UInt32(S_IFIFO): .fifo
    case UInt32(S_IFCHR), UInt32(S_IFBLK): .device
    case UInt32(S_IFSOCK): .socket
    default: .unreadable
    }
  }

  /// `lstat(path)`, or `stat(path)` when `followingLink`; nil when there is nothing there
  /// (or it cannot be looked at).
  static func of(_ path: String, followingLink: Bool) -> FileStatus? {
    var status = stat()
    let result = followingLink ? stat(path, &status) : lstat(path, &status)
    return result == 0 ? FileStatus(status) : nil
  }
}

/// A time to the nanosecond, as file systems keep them.
struct Timestamp: Comparable, Sendable {
  var seconds: Int64
  var nanoseconds: Int64

  init(seconds: Int64, nanoseconds: Int64) {
    self.seconds = seconds
    self.nanoseconds = nanoseconds
  }

  init(_ time: timespec) {
    self.init(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
  }

  /// The wall clock now: file times are on that clock, not the monotonic one.
  static func now() -> Timestamp {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Timestamp(time)
  }

  static func < (a: Timestamp, b: Timestamp) -> Bool {
    (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
  }

  /// This time moved back by whole seconds.
  func minus(seconds count: Int64) -> Timestamp {
    Timestamp(seconds: seconds - count, nanoseconds: nanoseconds)
  }
}
