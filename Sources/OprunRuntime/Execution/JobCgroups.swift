import Glibc
import OprunCore

/// The cgroups of one run (SPEC §12): a folder of oprun's per run, made where oprun may make
/// one — cgroup v2 (the nearest cgroup at or above oprun's own that it may write and whose
/// children get the memory controller: a subtree systemd delegated to the user, or any as
/// root), else cgroup v1's memory hierarchy (as root), with v1's `cpuacct` beside it when
/// mounted — and in it one cgroup per attempt of a job that declares resources, limited to
/// the attempt's memory with no swap beyond it.
///
/// Invariant: every folder in ``runFolders`` and every cgroup ``create(named:memory:)`` made
/// is removed by ``removeAll()``, or by the watchdog if oprun dies first.
/// Not thread-safe: use it from the event loop's thread.
final class JobCgroups {
  enum Version: Sendable { case v2, v1 }

  let version: Version
  /// The run's folders: v2's, or v1's memory one then, when mounted apart, its cpuacct one.
  let runFolders: [String]
  /// Cgroups made and not removed yet (a job's leftovers still in them), by path of their
  /// memory (or v2) folder.
  private var unremoved: [String: JobCgroup] = [:]

  private init(version: Version, runFolders: [String]) {
    self.version = version
    self.runFolders = runFolders
  }

  /// Makes the run's folder, named `name`, where oprun may; or says why it cannot.
  static func make(named name: String) -> Result<JobCgroups, CgroupUnavailable> {
    let own = CgroupText.ownCgroups(readText("/proc/self/cgroup") ?? "")
    let mounts = CgroupText.mounts(readText("/proc/self/mountinfo") ?? "")
    if let made = makeUnified(named: name, own: own.unified, mounts: mounts) { return .success(made) }
    if let made = makeVersion1(named: name, own: own.byController, mounts: mounts) { return .success(made) }
    let why =
      getuid() == 0
      ? "no cgroup with the memory controller could be made"
      : "no cgroup with the memory controller was delegated to this user"
    return .failure(CgroupUnavailable(reason: why))
  }

  /// Under the nearest cgroup, from oprun's own up, whose `cgroup.subtree_control` gives
  /// its children memory and in which oprun may make a folder; the folder then gives its
  /// own children memory too (it holds no process, as cgroup v2 requires for that).
  private static func makeUnified(named name: String, own: String?, mounts: [CgroupText.Mount]) -> JobCgroups? {
    guard let own, let mount = mounts.first(where: { $0.type == "cgroup2" }),
      var folder = mount.folder(of: own),
      readText(mount.point + "/cgroup.controllers")?.split(separator: " ").contains(where: { $0.hasPrefix("memory") })
        == true
    else { return nil }
    while true {
      let enabled = readText(folder + "/cgroup.subtree_control") ?? ""
      if enabled.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("memory") {
        let runFolder = folder + "/" + name
        if mkdir(runFolder, 0o755) == 0 {
          if writeText(runFolder + "/cgroup.subtree_control", "+memory") {
            return JobCgroups(version: .v2, runFolders: [runFolder])
          }
          rmdir(runFolder)
        }
      }
      guard folder.count > mount.point.count, let slash = folder.lastIndex(of: "/") else { return nil }
      folder = String(folder[..<slash])
    }
  }

  /// Under oprun's own cgroup of v1's memory hierarchy (and of its cpuacct one, when
  /// mounted apart), so that what bounds oprun still bounds its jobs.
  private static func makeVersion1(named name: String, own: [String: String], mounts: [CgroupText.Mount]) -> JobCgroups?
  {
    func folder(of controller: String) -> (mount: CgroupText.Mount, folder: String)? {
      guard let path = own[controller],
        let mount = mounts.first(where: { $0.type == "cgroup" && $0.controllers.contains(controller) }),
        let folder = mount.folder(of: path)
      else { return nil }
      return (mount, folder)
    }
    guard let memory = folder(of: "memory") else { return nil }
    let memoryRun = memory.folder + "/" + name
    guard mkdir(memoryRun, 0o755) == 0 else { return nil }
    var folders = [memoryRun]
    if !memory.mount.controllers.contains("cpuacct"), let cpuacct = folder(of: "cpuacct") {
      let cpuacctRun = cpuacct.folder + "/" + name
      if mkdir(cpuacctRun, 0o755) == 0 { folders.append(cpuacctRun) }
    }
    return JobCgroups(version: .v1, runFolders: folders)
  }

  /// Makes the cgroup `name` in each run folder, held to `memory` bytes when given (no swap
  /// beyond it), with its `cgroup.procs` open for a new process to join (close-on-exec);
  /// nil when it cannot be made, and then nothing is left of it.
  func create(named name: String, memory: Int?) -> JobCgroup? {
    var made: [String] = []
    var joining: [Int32] = []
    func undo() -> JobCgroup? {
      for descriptor in joining { close(descriptor) }
      for folder in made.reversed() { rmdir(folder) }
      return nil
    }
    for runFolder in runFolders {
      let folder = runFolder + "/" + name
      guard mkdir(folder, 0o755) == 0 else { return undo() }
      made.append(folder)
      let descriptor = open(folder + "/cgroup.procs", O_WRONLY | O_CLOEXEC)
      guard descriptor >= 0 else { return undo() }
      joining.append(descriptor)
    }
    if let memory, !limit(made[0], to: memory) { return undo() }
    let group = JobCgroup(folders: made, joining: joining, memoryLimit: memory)
    unremoved[made[0]] = group
    return group
  }

  /// Holds the cgroup at `folder` to `bytes` with no swap beyond them.
  private func limit(_ folder: String, to bytes: Int) -> Bool {
    switch version {
    case .v2:
      guard writeText(folder + "/memory.max", String(bytes)) else { return false }
      // Absent without swap accounting: nothing to hold then.
      _ = writeText(folder + "/memory.swap.max", "0")
      return true
    case .v1:
      guard writeText(folder + "/memory.limit_in_bytes", String(bytes)) else { return false }
      _ = writeText(folder + "/memory.memsw.limit_in_bytes", String(bytes))
      return true
    }
  }

  /// What the cgroup's processes used, by its counters: the whole group's peak, its CPU time
  /// (`measured`'s, from the reaped processes, where the cgroup keeps none), and its limit
  /// when the kernel killed one of them for passing it. Nil when the counters cannot be read.
  func usage(of group: JobCgroup, measured: ResourceUsage?) -> ResourceUsage? {
    let memoryFolder = group.folders[0]
    let peak: Int?
    let cpu: Double?
    let kills: Int
    switch version {
    case .v2:
      peak = readText(memoryFolder + "/memory.peak").flatMap(CgroupText.number)
      cpu = readText(memoryFolder + "/cpu.stat").flatMap(CgroupText.cpuSeconds(cpuStat:))
      kills = readText(memoryFolder + "/memory.events").map(CgroupText.outOfMemoryKills) ?? 0
    case .v1:
      peak = readText(memoryFolder + "/memory.max_usage_in_bytes").flatMap(CgroupText.number)
      cpu = group.folders.dropFirst().first.flatMap { readText($0 + "/cpuacct.usage") }
        .flatMap(CgroupText.cpuSeconds(cpuacctUsage:))
      kills = readText(memoryFolder + "/memory.oom_control").map(CgroupText.outOfMemoryKills) ?? 0
    }
    guard let peak, let cpuSeconds = cpu ?? measured?.cpuSeconds else { return nil }
    var usage = ResourceUsage(cpuSeconds: cpuSeconds, peakMemory: peak, source: .cgroup)
    if kills > 0 { usage.outOfMemoryLimit = group.memoryLimit }
    return usage
  }

  /// Removes the cgroup if nothing is left in it; what a job left running keeps it until
  /// ``removeAll()``.
  func remove(_ group: JobCgroup) {
    if removeFolders(of: group) { unremoved[group.folders[0]] = nil }
  }

  /// The run is over: what is still in its cgroups is killed, and every cgroup is removed,
  /// then the run's folders (waiting up to two seconds for killed processes to go).
  func removeAll() {
    for group in unremoved.values { kill(group) }
    var tries = 0
    while true {
      for (key, group) in unremoved where removeFolders(of: group) { unremoved[key] = nil }
      if unremoved.isEmpty || tries == 200 { break }
      tries += 1
      usleep(10_000)
    }
    for folder in runFolders.reversed() { rmdir(folder) }
  }

  /// SIGKILL to everything in the cgroup: `cgroup.kill` on v2 where the kernel has it, else
  /// each process its `cgroup.procs` lists.
  private func kill(_ group: JobCgroup) {
    for folder in group.folders {
      if version == .v2, writeText(folder + "/cgroup.kill", "1") { continue }
      for line in (readText(folder + "/cgroup.procs") ?? "").split(separator: "\n") {
        if let pid = Int32(line), pid > 1 { Glibc.kill(pid, SIGKILL) }
      }
    }
  }

  private func removeFolders(of group: JobCgroup) -> Bool {
    var removed = true
    for folder in group.folders where rmdir(folder) != 0 && errno != ENOENT { removed = false }
    return removed
  }
}

/// One attempt's cgroup: its folders (the memory or v2 one first) and, until the attempt's
/// processes have started, its `cgroup.procs` descriptors.
final class JobCgroup {
  let folders: [String]
  /// Open until ``closeJoining()``: each new process of the attempt writes itself into them.
  private(set) var joining: [Int32]
  /// The limit it was made with, in bytes.
  let memoryLimit: Int?

  init(folders: [String], joining: [Int32], memoryLimit: Int?) {
    self.folders = folders
    self.joining = joining
    self.memoryLimit = memoryLimit
  }

  /// Every process of the attempt has started: no other may join.
  func closeJoining() {
    for descriptor in joining { close(descriptor) }
    joining = []
  }
}

/// Why the run makes no cgroups, in words for the warning.
struct CgroupUnavailable: Error {
  var reason: String
}

private func readText(_ path: String) -> String? {
  guard case .success(let bytes) = FileContents.read(path: path, limit: 1 << 16) else { return nil }
  return String(decoding: bytes, as: UTF8.self)
}

/// Writes `text` to the kernel file at `path` in one call; whether it took it.
private func writeText(_ path: String, _ text: String) -> Bool {
  let descriptor = open(path, O_WRONLY | O_CLOEXEC)
  guard descriptor >= 0 else { return false }
  defer { close(descriptor) }
  let bytes = Array(text.utf8)
  return bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count
}
