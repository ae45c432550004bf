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
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard let first = name.utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { continue }
      if let child = stat("/proc/\(name)/stat", buffer: &buffer), child.parent == me {
        groups.append(ChildGroup(group: child.group, session: child.session))
      }
    }
    return groups
  }

  /// The groups of this process's children as its main thread's `children` file lists them:
  /// a few system calls, where ``scan()`` reads all of /proc. The orphans a subreaper adopts
  /// are its main thread's children. A child for which `isKnown` holds (a job's own first
  /// process, whose pid is its group) is not looked at.
  public static func adopted(skipping isKnown: (Int32) -> Bool) -> [ChildGroup] {
    let me = getpid()
    let fd = open("/proc/self/task/\(me)/children", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      text += chunk[0..<count]
    }
    var buffer = [UInt8](repeating: 0, count: 512)
    return text.split(separator: UInt8(ascii: " ")).compactMap { digits in
      guard let pid = Int32(String(decoding: digits, as: UTF8.self)), !isKnown(pid),
        let child = stat("/proc/\(pid)/stat", buffer: &buffer), child.parent == me
      else { return nil }
      return ChildGroup(group: child.group, session: child.session)
    }
  }

  /// Parent pid, process group and session from a `/proc/PID/stat` file.
  private static func stat(_ path: String, buffer: inout [UInt8]) -> (parent: Int32, group: Int32, session: Int32)? {
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
