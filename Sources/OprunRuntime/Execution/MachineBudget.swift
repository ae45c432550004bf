import OprunCore

/// What this oprun may use, when neither `--budget` nor the manifest says (SPEC §12): the
/// CPUs of its affinity mask, or its cgroup's CPU quota if lower; the machine's memory
/// (`MemTotal`), or its cgroup's memory limit if lower. Only read when some job declares
/// what it needs.
///
/// The cgroup is the one `/proc/self/cgroup` names, under the usual mounts
/// (`/sys/fs/cgroup` for v2, `/sys/fs/cgroup/cpu`, `…/cpu,cpuacct` and `…/memory` for v1),
/// and each of its ancestors up to the mount: a parent's limit holds its children too. A
/// file that is not there, or says `max`, limits nothing.
public enum MachineBudget {
  public static func probe() -> ResourceBudget {
    let groups = cgroups(of: read("/proc/self/cgroup") ?? "")
    var cpus = CPUCount.available
    var memory = memoryTotal(read("/proc/meminfo") ?? "") ?? Int.max
    if let path = groups.unified {
      for folder in folders(mount: "/sys/fs/cgroup", path: path) {
        if let quota = read(folder + "/cpu.max").flatMap(cpuQuotaV2) { cpus = min(cpus, quota) }
        if let limit = read(folder + "/memory.max").flatMap(memoryLimit) { memory = min(memory, limit) }
      }
    }
    if let path = groups.cpu {
      for mount in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] {
        for folder in folders(mount: mount, path: path) {
          guard let quota = read(folder + "/cpu.cfs_quota_us"), let period = read(folder + "/cpu.cfs_period_us"),
            let cpuQuota = cpuQuotaV1(quota: quota, period: period)
          else { continue }
          cpus = min(cpus, cpuQuota)
        }
      }
    }
    if let path = groups.memory {
      for folder in folders(mount: "/sys/fs/cgroup/memory", path: path) {
        if let limit = read(folder + "/memory.limit_in_bytes").flatMap(memoryLimit) { memory = min(memory, limit) }
      }
    }
    return ResourceBudget(cpus: max(1, cpus), memory: max(1, memory))
  }

  /// The cgroup paths `/proc/self/cgroup` gives: v2's (`0::PATH`) and v1's `cpu` and `memory`.
  static func cgroups(of text: String) -> (unified: String?, cpu: String?, memory: String?) {
    var groups: (unified: String?, cpu: String?, memory: String?) = (nil, nil, nil)
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3 else { continue }
      let path = String(fields[2])
      if fields[0] == "0", fields[1].isEmpty { groups.unified = path }
      let controllers = fields[1].split(separator: ",")
      if controllers.contains("cpu") { groups.cpu = path }
      if controllers.contains("memory") { groups.memory = path }
    }
    return groups
  }

  /// `mount/path`, then each parent folder up to `mount` itself.
  static func folders(mount: String, path: String) -> [String] {
    var parts = path.split(separator: "/").map(String.init)
    var folders: [String] = []
    while true {
      folders.append(([mount] + parts).joined(separator: "/"))
      if parts.isEmpty { return folders }
      parts.removeLast()
    }
  }

  /// `MemTotal` of `/proc/meminfo`, in bytes.
  static func memoryTotal(_ meminfo: String) -> Int? {
    for line in meminfo.split(separator: "\n") where line.hasPrefix("MemTotal:") {
      let fields = line.split(separator: " ")
      guard fields.count >= 2, let kibibytes = Int(fields[1]) else { return nil }
      return kibibytes * 1024
    }
    return nil
  }

  /// v2's `cpu.max`, `QUOTA PERIOD` (or `max PERIOD`): whole CPUs, rounded up, at least 1.
  static func cpuQuotaV2(_ text: String) -> Int? {
    let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard fields.count == 2 else { return nil }
    return cpuQuotaV1(quota: String(fields[0]), period: String(fields[1]))
  }

  /// v1's `cpu.cfs_quota_us` over `cpu.cfs_period_us` (a quota of -1 is none): whole CPUs,
  /// rounded up, at least 1.
  static func cpuQuotaV1(quota: String, period: String) -> Int? {
    guard let quota = Int(trimmed(quota)), let period = Int(trimmed(period)), quota > 0, period > 0 else {
      return nil
    }
    return max(1, (quota + period - 1) / period)
  }

  /// `memory.max` or `memory.limit_in_bytes`: bytes; `max`, or v1's page-rounded `Int.max`, is no limit.
  static func memoryLimit(_ text: String) -> Int? {
    guard let bytes = Int(trimmed(text)), bytes > 0, bytes < Int.max / 2 else { return nil }
    return bytes
  }

  private static func trimmed(_ text: String) -> Substring {
    Substring(text).drop(while: { $0 == " " }).prefix(while: { $0 != "\n" && $0 != " " })
  }

  private static func read(_ path: String) -> String? {
    guard case .success(let bytes) = FileContents.read(path: path, limit: 1 << 20) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }
}
