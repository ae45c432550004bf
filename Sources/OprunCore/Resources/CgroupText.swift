/// What the kernel's cgroup files say, read from their text (SPEC §12): where oprun's own
/// cgroups are, where each hierarchy is mounted, and a job's cgroup's counters. The files are
/// read elsewhere; this only reads their words.
public enum CgroupText {
  /// The value of `key` in a file of `key value` lines (`memory.events`, `memory.oom_control`,
  /// `cpu.stat`); nil when the key is missing or its value is not a whole number.
  public static func value(of key: StaticString, in text: String) -> Int? {
    var text = text
    return text.withUTF8 { value(of: key, in: UnsafeRawBufferPointer($0)) }
  }

  /// ``value(of:in:)`` of the file's bytes as read: a job's counters are read at every
  /// attempt's end, so without making a string of them.
  public static func value(of key: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
    let wanted = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
    var lineStart = 0
    while lineStart < bytes.count {
      let lineEnd = bytes[lineStart...].firstIndex(of: newline) ?? bytes.count
      let keyEnd = lineStart + wanted.count
      if keyEnd < lineEnd, bytes[keyEnd] == space, bytes[lineStart..<keyEnd].elementsEqual(wanted) {
        var valueStart = keyEnd
        var valueEnd = lineEnd
        while valueStart < valueEnd, bytes[valueStart] == space { valueStart += 1 }
        while valueEnd > valueStart, bytes[valueEnd - 1] == space { valueEnd -= 1 }
        return decimal(in: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]))
      }
      lineStart = lineEnd + 1
    }
    return nil
  }

  /// A file holding one number (`memory.peak`, `memory.max_usage_in_bytes`, `cpuacct.usage`).
  public static func number(_ text: String) -> Int? {
    var text = text
    return text.withUTF8 { number(UnsafeRawBufferPointer($0)) }
  }

  /// ``number(_:)`` of the file's bytes as read.
  public static func number(_ bytes: UnsafeRawBufferPointer) -> Int? {
    decimal(in: UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.firstIndex(of: newline) ?? bytes.count)]))
  }

  /// How many processes the kernel killed for passing the limit, from cgroup v2's
  /// `memory.events` or v1's `memory.oom_control` (both name it `oom_kill`); 0 when it says none.
  public static func outOfMemoryKills(_ text: String) -> Int {
    value(of: "oom_kill", in: text) ?? 0
  }

  /// ``outOfMemoryKills(_:)`` of the file's bytes as read.
  public static func outOfMemoryKills(_ bytes: UnsafeRawBufferPointer) -> Int {
    value(of: "oom_kill", in: bytes) ?? 0
  }

  /// Whether a cgroup whose peak was `peak` bytes can have had a process killed for passing
  /// its limit of `limit` bytes (nil: none, which nothing passes). The kernel kills only when a
  /// charge that would pass the limit fails alone after reclaim, and no charge is larger than
  /// a huge page or a large kernel allocation (a few megabytes): the peak then came within one
  /// of the limit. True when the peak is unknown.
  public static func mayHaveReachedLimit(peak: Int?, limit: Int?) -> Bool {
    guard let peak else { return true }
    guard let limit else { return false }
    return peak >= limit - max(limit / 8, 16 << 20)
  }

  /// CPU seconds from cgroup v2's `cpu.stat` (`usage_usec`, microseconds).
  public static func cpuSeconds(cpuStat text: String) -> Double? {
    value(of: "usage_usec", in: text).map { Double($0) / 1e6 }
  }

  /// A whole number written in decimal, all of `digits` (a sign allowed, as the kernel writes
  /// `-1`); nil for anything else (`max`, an empty text, more than an Int holds).
  private static func decimal(in digits: UnsafeRawBufferPointer) -> Int? {
    var index = 0
    let negative = digits.first == UInt8(ascii: "-")
    if negative || digits.first == UInt8(ascii: "+") { index = 1 }
    guard index < digits.count else { return nil }
    var result = 0
    while index < digits.count {
      let digit = Int(digits[index]) - Int(UInt8(ascii: "0"))
      guard (0...9).contains(digit) else { return nil }
      let (shifted, overflowShift) = result.multipliedReportingOverflow(by: 10)
      let (sum, overflowSum) =
        negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
      guard !overflowShift, !overflowSum else { return nil }
      result = sum
      index += 1
    }
    return result
  }

  /// oprun's own cgroups from `/proc/self/cgroup`: the unified (v2) one's path, and each v1
  /// controller's path by controller name (`memory`, `cpuacct`; a line naming several
  /// controllers, `cpu,cpuacct`, gives each the same path).
  public static func ownCgroups(_ text: String) -> (unified: String?, byController: [String: String]) {
    var unified: String?
    var byController: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3 else { continue }
      let path = String(fields[2])
      if fields[1].isEmpty {
        unified = path
      } else {
        for controller in fields[1].split(separator: ",") { byController[String(controller)] = path }
      }
    }
    return (unified, byController)
  }

  /// One cgroup file system mount from `/proc/self/mountinfo`.
  public struct Mount: Sendable, Equatable {
    /// Where it is mounted.
    public var point: String
    /// The cgroup path its root is (`/` unless a namespace or a bind mount shows a subtree).
    public var root: String
    /// `cgroup2`, or `cgroup` for a v1 hierarchy.
    public var type: String
    /// A v1 hierarchy's controllers (`memory`, `cpu`, `cpuacct`); empty for cgroup2.
    public var controllers: [String]

    public init(point: String, root: String, type: String, controllers: [String]) {
      self.point = point
      self.root = root
      self.type = type
      self.controllers = controllers
    }

    /// Where the cgroup at `path` (as `/proc/self/cgroup` names it) is in the file system;
    /// nil when it is outside this mount's root.
    public func folder(of path: String) -> String? {
      if root == "/" { return path == "/" ? point : point + path }
      if path == root { return point }
      guard path.hasPrefix(root + "/") else { return nil }
      return point + path.dropFirst(root.count)
    }
  }

  /// The cgroup mounts of `/proc/self/mountinfo`, in its order. Octal escapes (`\040` for a
  /// space) in paths are decoded.
  public static func mounts(_ text: String) -> [Mount] {
    var found: [Mount] = []
    for line in text.split(separator: "\n") {
      // ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER-OPTIONS
      let fields = line.split(separator: " ")
      guard let separator = fields.firstIndex(of: "-"), separator >= 6, fields.count > separator + 3 else { continue }
      let type = String(fields[separator + 1])
      guard type == "cgroup" || type == "cgroup2" else { continue }
      let controllers =
        type == "cgroup" ? fields[separator + 3].split(separator: ",").map(String.init) : []
      found.append(
        Mount(
          point: unescaped(fields[4]), root: unescaped(fields[3]), type: type, controllers: controllers))
    }
    return found
  }

  private static func unescaped(_ field: Substring) -> String {
    guard field.contains("\\") else { return String(field) }
    var bytes: [UInt8] = []
    var utf8 = Array(field.utf8)[...]
    while let byte = utf8.popFirst() {
      let digits = utf8.prefix(3)
      if byte == UInt8(ascii: "\\"), digits.count == 3, digits.allSatisfy({ (48...55).contains($0) }) {
        bytes.append(UInt8(truncatingIfNeeded: digits.reduce(0) { $0 * 8 + Int($1 - 48) }))
        utf8 = utf8.dropFirst(3)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

private let newline = UInt8(ascii: "\n")
private let space = UInt8(ascii: " ")
