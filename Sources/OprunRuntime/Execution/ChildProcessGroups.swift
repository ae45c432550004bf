import Glibc

/// The process groups of oprun's living children, read from /proc.
///
/// As the run's subreaper, oprun inherits whatever its jobs leave behind, so its children
/// are exactly the job and completion processes still running plus those leftovers. Asking
/// for them, rather than signalling every group number the run ever used, keeps a cleanup
/// from reaching a stranger that was given a recycled number (pid_max is often 32768).
public enum ChildProcessGroups {
  /// The groups of every child of this process, zombies included (they are not reaped yet),
  /// each with its session.
  public static func scan() -> [ChildGroup] {
    var groups: [ChildGroup] = []
    guard hasChildren() else { return groups }
    let me = getpid()
    guard let directory = opendir("/proc") else { return groups }
    defer { closedir(directory) }
    var buffer = [UInt8](repeating: 0, count: 512)
    while let entry = readdir(directory) {
      let name = entry.name
      guard let first = name.utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { continue }
      if let child = stat("/proc/\(name)/stat", buffer: &buffer), child.parent == me {
        groups.append(ChildGroup(group: child.group, session: child.session))
      }
    }
    return groups
  }

  /// Parent pid, process group and session from a `/proc/PID/stat` file.
  static func stat(_ path: String, buffer: inout [UInt8]) -> (parent: Int32, group: Int32, session: Int32)? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    // The command name, in parentheses, may hold spaces: fields start after the last ')'.
    let text = buffer[0..<count]
    guard let close = text.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    let fields = text[(close + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 5)
    guard fields.count >= 5,
      let parent = Int32(String(decoding: fields[1], as: UTF8.self)),
      let group = Int32(String(decoding: fields[2], as: UTF8.self)),
      let session = Int32(String(decoding: fields[3], as: UTF8.self))
    else { return nil }
    return (parent, group, session)
  }

  /// Whether this process has any child, living or not, without reaping one: one system
  /// call that spares the /proc walk at the end of almost every run.
  static func hasChildren() -> Bool {
    var info = siginfo_t()
    return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0
  }
}

/// A child's process group and session.
public struct ChildGroup: Hashable, Sendable {
  public var group: Int32
  public var session: Int32
}

/// The process groups of the children this process adopted, as its main thread's `children`
/// file lists its children: the orphans a subreaper adopts are its main thread's children.
///
/// The file stays open for as long as this lives, and each look reads it again from its
/// start (procfs lists the children afresh at offset 0): a look is two `pread`s, where
/// opening the file each time cost a path lookup, an `open` and a `close` per job.
final class AdoptedChildren {
  /// Invariant: the open `children` file once a look has opened it, -1 when it could not be
  /// opened (there is then nothing to learn from it), nil before the first look: a run that
  /// ends no job opens nothing.
  private var descriptor: Int32?
  /// Reused between looks; grows to hold the longest listing seen.
  private var listing = [UInt8](repeating: 0, count: 4096)
  private var statBuffer = [UInt8](repeating: 0, count: 512)
  /// Whether the last look read the whole listing: false where it could not be read, and
  /// nothing can be told from it.
  private(set) var listed = false

  /// Whose children are listed: the main thread's (a process's pid is its main thread's id),
  /// where a subreaper's orphans go; a test names its own thread, whose children it spawns.
  private let thread: pid_t

  init(thread: pid_t = getpid()) {
    self.thread = thread
  }

  deinit {
    if let descriptor, descriptor >= 0 { close(descriptor) }
  }

  /// The group and session of each child for which `isKnown` does not hold (a job's own first
  /// process, whose pid is its group, is known), zombies included.
  func groups(skipping isKnown: (Int32) -> Bool) -> [ChildGroup] {
    let length = readListing()
    var groups: [ChildGroup] = []
    var pid: Int32 = 0
    var hasDigits = false
    // One more turn past the end, as a separator, for a listing without a trailing space.
    for index in 0...length {
      let byte = index < length ? listing[index] : UInt8(ascii: " ")
      if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
        pid = pid &* 10 &+ Int32(byte - UInt8(ascii: "0"))
        hasDigits = true
        continue
      }
      if hasDigits, !isKnown(pid), let child = ChildProcessGroups.stat("/proc/\(pid)/stat", buffer: &statBuffer),
        child.parent == getpid()
      {
        groups.append(ChildGroup(group: child.group, session: child.session))
      }
      pid = 0
      hasDigits = false
    }
    return groups
  }

  /// Reads the whole listing into `listing`, from offset 0 until end of file; its length.
  /// Sets ``listed``.
  private func readListing() -> Int {
    listed = false
    if descriptor == nil { descriptor = open("/proc/self/task/\(thread)/children", O_RDONLY | O_CLOEXEC) }
    guard let descriptor, descriptor >= 0 else { return 0 }
    var length = 0
    while true {
      if length == listing.count { listing += repeatElement(0, count: listing.count) }
      let count = listing.withUnsafeMutableBytes { bytes in
        pread(descriptor, bytes.baseAddress! + length, bytes.count - length, off_t(length))
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        listed = count == 0
        return length
      }
      length += count
    }
  }
}
