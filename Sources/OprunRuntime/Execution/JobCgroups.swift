import Glibc
import OprunCore

/// The cgroups of one run (SPEC §12): a folder of oprun's per run, made where oprun may make
/// one — cgroup v2 (the nearest cgroup at or above oprun's own that it may write and whose
/// children get the memory controller: a subtree systemd delegated to the user, or any as
/// root), else cgroup v1's memory hierarchy (as root) — and in it one cgroup per executing
/// attempt of a job that declares resources, limited to the attempt's memory with no swap
/// beyond it: a slot emptied by an earlier attempt, reset, where there is one.
///
/// On v1 a job's cgroup is in the memory hierarchy alone: its CPU time is its reaped
/// processes' (v1's memory controller keeps none). Joining `cpuacct` as well cost every job a
/// second cgroup to join (about 2 % of a trivial job), and where `cpuacct` is mounted with
/// `cpu`, as most v1 machines have it, it would have made each job a scheduling group of its
/// own, weighed as one against the others whatever its processes.
///
/// Invariant: ``runFolder`` and every cgroup ``create(memory:)`` made is
/// removed by ``removeAll()``, or by the watchdog if oprun dies first.
/// Not thread-safe: use it from the event loop's thread.
final class JobCgroups {
  enum Version: Sendable { case v2, v1 }

  let version: Version
  /// The run's folder: in v2's hierarchy, or v1's memory one.
  let runFolder: String
  /// Cgroups made and not removed yet (given to an attempt, in the free pool, or holding a
  /// job's leftovers), by path.
  private var made: [String: JobCgroup] = [:]
  /// Emptied cgroups, reset and given to the next attempts.
  private var free: [JobCgroup] = []
  /// How many slot cgroups were made: the next one's number.
  private var slots = 0
  /// Whether emptied cgroups are reused: not on a v2 kernel that cannot reset a peak.
  private var reuses = true

  private init(version: Version, runFolder: String) {
    self.version = version
    self.runFolder = runFolder
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
            return JobCgroups(version: .v2, runFolder: runFolder)
          }
          rmdir(runFolder)
        }
      }
      guard folder.count > mount.point.count, let slash = folder.lastIndex(of: "/") else { return nil }
      folder = String(folder[..<slash])
    }
  }

  /// Under oprun's own cgroup of v1's memory hierarchy, so that what bounds oprun still
  /// bounds its jobs.
  private static func makeVersion1(named name: String, own: [String: String], mounts: [CgroupText.Mount]) -> JobCgroups?
  {
    guard let path = own["memory"],
      let mount = mounts.first(where: { $0.type == "cgroup" && $0.controllers.contains("memory") }),
      let folder = mount.folder(of: path)
    else { return nil }
    let runFolder = folder + "/" + name
    guard mkdir(runFolder, 0o755) == 0 else { return nil }
    return JobCgroups(version: .v1, runFolder: runFolder)
  }

  /// Gives an attempt a cgroup, held to `memory` bytes when given (no swap beyond it), its
  /// counters starting from nothing, with its `cgroup.procs` (v1: `tasks`) open for a new process to join
  /// (close-on-exec): an emptied one from the free pool, reset, where there is one, else a new
  /// one named by slot (`slotK`, in each run folder). Nil when none can be had, and then
  /// nothing is left of a new one.
  ///
  /// Reuse saves the kernel making and removing a cgroup per attempt, and keeping the
  /// control files open saves opening them: most of what a cgroup per job costs.
  func create(memory: Int?) -> JobCgroup? {
    while let group = free.popLast() {
      if reset(group, memory: memory) {
        group.openJoining()
        return group
      }
      destroy(group)
    }
    return makeSlot(memory: memory)
  }

  private func makeSlot(memory: Int?) -> JobCgroup? {
    let folder = runFolder + "/slot\(slots)"
    slots += 1
    guard mkdir(folder, 0o755) == 0 else { return nil }
    let group = JobCgroup(folder: folder)
    guard group.opensProcs(joiningThrough: version == .v1 ? "tasks" : "cgroup.procs"), limit(group, to: memory) else {
      destroy(group)
      return nil
    }
    made[folder] = group
    return group
  }

  /// Makes an emptied cgroup like a new one: its limit `memory`, its peak and CPU time reset
  /// (or, where the kernel cannot reset them, their figures now kept to subtract), and the
  /// memory a former attempt left charged to it (page cache) given back, so that it counts in
  /// no later peak. False when it cannot be: it is then removed and a new one made. So is one
  /// whose charge cannot be given back (files in a tmpfs, with no swap to put them in), which
  /// would count in the next attempt's peak and against its limit; removing the cgroup hands
  /// the charge to the run's folder.
  private func reset(_ group: JobCgroup, memory: Int?) -> Bool {
    switch version {
    case .v2:
      // Memory left charged would be the floor of the peak just reset (and cannot be more
      // than the peak read at the former attempt's end).
      if (group.chargedAtMost ?? .max) > chargedLeftWorthReclaiming,
        let left = group.readNumber(.current), left > chargedLeftWorthReclaiming
      {
        _ = group.write(.reclaim, String(left))
        guard (group.readNumber(.current) ?? .max) <= chargedLeftWorthReclaiming else { return false }
      }
      // Kernels before 6.12 cannot reset it: such a cgroup is not reused.
      guard group.write(.peak, "reset") else {
        reuses = false
        return false
      }
    case .v1:
      // Memory left charged (page cache) would be the floor of the peak just reset. Giving it
      // back costs the kernel a reclaim loop even when little is left (about 200 µs a job),
      // so only where more than a few megabytes are. An emptied cgroup's usage only falls, so
      // a peak read at its attempt's end at or below them spares reading it.
      if (group.chargedAtMost ?? .max) > chargedLeftWorthReclaiming,
        let left = group.readNumber(.usage), left > chargedLeftWorthReclaiming
      {
        _ = group.write(.forceEmpty, "0")
        guard (group.readNumber(.usage) ?? .max) <= chargedLeftWorthReclaiming else { return false }
      }
      guard group.write(.maxUsage, "0") else { return false }
    }
    return limit(group, to: memory)
  }

  /// Holds the cgroup to `bytes` with no swap beyond them, or to nothing (unlimited) when nil.
  /// On v1 the limit may never pass the memory-and-swap one: the one that grows is set first.
  private func limit(_ group: JobCgroup, to bytes: Int?) -> Bool {
    guard group.memoryLimit != bytes else { return true }
    defer { group.memoryLimit = bytes }
    switch version {
    case .v2:
      guard group.write(.max, bytes.map(String.init) ?? "max") else { return false }
      // Absent without swap accounting: nothing to hold then.
      _ = group.write(.swapMax, bytes == nil ? "max" : "0")
      return true
    case .v1:
      let text = bytes.map(String.init) ?? "-1"
      if (bytes ?? .max) > (group.memoryLimit ?? .max) || bytes == nil {
        _ = group.write(.memoryAndSwapLimit, text)
        return group.write(.limit, text)
      }
      guard group.write(.limit, text) else { return false }
      _ = group.write(.memoryAndSwapLimit, text)
      return true
    }
  }

  /// What the cgroup's processes used since it was given to the attempt, by its counters: the
  /// whole group's peak, its CPU time (v1's: `measured`'s, from the reaped processes), and,
  /// for an attempt that `failed`, its limit when the kernel killed one of its processes for
  /// passing it. Nil when the counters cannot be read.
  func usage(of group: JobCgroup, measured: ResourceUsage?, failed: Bool) -> ResourceUsage? {
    // v2's peak is read through the file it was reset through: a reset holds for that open file only.
    let peak = group.readNumber(version == .v2 ? .peak : .maxUsage)
    group.chargedAtMost = peak
    let cpuTime = version == .v2 ? group.readCPUTime() : nil
    let cpu = cpuTime.map { Double($0 - group.countersBefore.cpu) / 1e6 }
    if let cpuTime { group.countersBefore.cpu = cpuTime }
    // The kernel kills for passing the limit only once the usage is there, so the kills are
    // counted only for an attempt whose peak came that near, and read only for one that did
    // or that failed: a trivial job that succeeded makes one call fewer. A kill of the
    // machine's (or an enclosing cgroup's) OOM killer in an attempt that succeeded all the
    // same is then counted to the next attempt of this cgroup that reads them, and reported
    // only if that attempt failed near its own limit.
    let nearLimit = CgroupText.mayHaveReachedLimit(peak: peak, limit: group.memoryLimit)
    var killsSince = 0
    if failed || nearLimit, let kills = group.readKills(killsFile) {
      killsSince = kills - group.countersBefore.kills
      group.countersBefore.kills = kills
    }
    group.countersRead = true
    guard let peak, let cpuSeconds = cpu ?? measured?.cpuSeconds else { return nil }
    var usage = ResourceUsage(cpuSeconds: cpuSeconds, peakMemory: peak, source: .cgroup)
    if killsSince > 0, nearLimit { usage.outOfMemoryLimit = group.memoryLimit }
    return usage
  }

  /// Where the kernel counts the processes it killed for passing a cgroup's limit.
  private var killsFile: ControlFile { version == .v2 ? .events : .outOfMemoryControl }

  /// The attempt is over: its cgroup goes to the free pool when no process is left in it
  /// (`knownEmpty`, or else as its `cgroup.procs` says; its counters that cannot be reset
  /// read first, unless ``usage(of:measured:failed:)`` just did), else it is removed if it
  /// can be; what a job left running keeps it until ``removeAll()``.
  func release(_ group: JobCgroup, knownEmpty: Bool = false) {
    group.closeJoining()
    if reuses, knownEmpty || group.isEmpty() {
      if !group.countersRead {
        group.chargedAtMost = nil
        if version == .v2 { group.countersBefore.cpu = group.readCPUTime() ?? group.countersBefore.cpu }
        group.countersBefore.kills = group.readKills(killsFile) ?? group.countersBefore.kills
      }
      group.countersRead = false
      free.append(group)
      return
    }
    group.countersRead = false
    if remove(group) {
      group.closeFiles()
      made[group.folder] = nil
    }
  }

  /// Removes a cgroup that cannot be reused, or keeps it for ``removeAll()`` while something
  /// is in it.
  private func destroy(_ group: JobCgroup) {
    group.closeFiles()
    if remove(group) { made[group.folder] = nil }
  }

  /// The run is over: what is still in its cgroups is killed, and every cgroup is removed,
  /// then the run's folder (waiting up to two seconds for killed processes to go, and killing
  /// again what is still listed: a process that forked after its pid was read is not killed
  /// with it, as the watchdog's passes do).
  func removeAll() {
    free = []
    for group in made.values { group.closeFiles() }
    var tries = 0
    while true {
      for group in made.values { kill(group) }
      if tries > 0 { usleep(10_000) }
      for (key, group) in made where remove(group) { made[key] = nil }
      if made.isEmpty || tries == 200 { break }
      tries += 1
    }
    rmdir(runFolder)
  }

  /// SIGKILL to everything in the cgroup: `cgroup.kill` on v2 where the kernel has it, else
  /// each process its `cgroup.procs` lists.
  private func kill(_ group: JobCgroup) {
    if version == .v2, writeText(group.folder + "/cgroup.kill", "1") { return }
    for line in (readText(group.folder + "/cgroup.procs") ?? "").split(separator: "\n") {
      if let pid = Int32(line), pid > 1 { Glibc.kill(pid, SIGKILL) }
    }
  }

  /// Whether its folder is gone: removed now, or before.
  private func remove(_ group: JobCgroup) -> Bool {
    rmdir(group.folder) == 0 || errno == ENOENT
  }
}

/// One cgroup of the run's, given to one attempt at a time: its folder, its control files kept
/// open, and until the attempt's processes have started, the descriptor to join it through.
final class JobCgroup {
  let folder: String
  /// The file a new process writes itself into, open (close-on-exec) while it lives:
  /// `cgroup.procs`, or v1's `tasks` (see ``opensProcs(joiningThrough:)``); -1 before.
  private var joinFile: Int32 = -1
  /// Whether ``joinFile`` is its `cgroup.procs` (v2), which then also says whether it is
  /// empty (``isEmpty()``).
  private var joinsThroughProcs = false
  /// What each new process of the attempt writes itself into (``joinFile``); empty after
  /// ``closeJoining()``.
  private(set) var joining: [Int32] = []
  /// The limit it holds now, in bytes; nil: none.
  var memoryLimit: Int?
  /// The counters not reset, as they were when the current attempt was given the cgroup:
  /// out-of-memory kills, and v2's CPU time (microseconds).
  var countersBefore: (kills: Int, cpu: Int) = (0, 0)
  /// Bytes at most charged to it now, when known: the peak read at its last attempt's end,
  /// after which nothing ran in it (an emptied cgroup's usage only falls); nil: unknown.
  var chargedAtMost: Int? = 0
  /// Whether the counters were read since the cgroup was given to its attempt.
  var countersRead = false
  /// Control files opened once, by ``ControlFile``: a descriptor, -1 where it cannot be
  /// opened, ``notOpened`` before it is tried.
  private var files = [Int32](repeating: notOpened, count: ControlFile.allCases.count)

  init(folder: String) {
    self.folder = folder
  }

  /// Opens its file named `joinFile`, for joining (and, on v2, for seeing whether it is empty).
  ///
  /// On cgroup v1 a new process joins through `tasks`: writing "0" there moves the calling
  /// thread, which in a child that has not exec'd yet is the whole process, and the kernel
  /// moves a thread that moves itself without taking the lock every fork in the system waits
  /// on. Through `cgroup.procs` it takes that lock for writing, and the first writer after a
  /// quiet moment sleeps a whole RCU grace period (milliseconds, tens of them on a loaded
  /// machine) before its command can start.
  func opensProcs(joiningThrough name: String) -> Bool {
    joinsThroughProcs = name == "cgroup.procs"
    joinFile = open(folder + "/" + name, (joinsThroughProcs ? O_RDWR : O_WRONLY) | O_CLOEXEC)
    guard joinFile >= 0 else { return false }
    joining = [joinFile]
    return true
  }

  /// A new attempt's processes may join.
  func openJoining() {
    joining = [joinFile]
  }

  /// Every process of the attempt has started: no other may join.
  func closeJoining() {
    joining = []
  }

  /// Whether no process is in it, as its `cgroup.procs` lists them.
  ///
  /// On v1 it is opened anew for each look: v1 lists the pids an open `cgroup.procs` read first, and
  /// gives the same list to a later read of that open file while it has been read within a
  /// second, so a file kept open would say the cgroup is as empty as when first read.
  func isEmpty() -> Bool {
    guard joinsThroughProcs else {
      return (try? FileContents.readPrefix(path: folder + "/cgroup.procs", count: 1).get())?.isEmpty ?? false
    }
    var byte: UInt8 = 0
    return joinFile >= 0 && pread(joinFile, &byte, 1, 0) == 0
  }

  /// The number its control file `file` holds, read from the start of the file kept open.
  func readNumber(_ file: ControlFile) -> Int? {
    read(file, CgroupText.number)
  }

  /// The processes killed for passing the limit, by its `file` (`memory.events` or v1's
  /// `memory.oom_control`).
  func readKills(_ file: ControlFile) -> Int? {
    read(file, CgroupText.outOfMemoryKills)
  }

  /// Its CPU time as cgroup v2 counts it (`cpu.stat`, microseconds); nil where it keeps none.
  func readCPUTime() -> Int? {
    read(.cpuStat) { CgroupText.value(of: "usage_usec", in: $0) }
  }

  /// What `parse` makes of the bytes of its control file `file`, read from the start of the
  /// file kept open into a buffer on the stack: counters are read at every attempt's end.
  private func read<Value>(_ file: ControlFile, _ parse: (UnsafeRawBufferPointer) -> Value?) -> Value? {
    guard let descriptor = descriptor(of: file, for: O_RDWR) ?? descriptor(of: file, for: O_RDONLY) else {
      return nil
    }
    return withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 1) { buffer in
      let count = pread(descriptor, buffer.baseAddress, buffer.count, 0)
      guard count >= 0 else { return nil }
      return parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
  }

  /// Writes `text` to its control file `file` in one call; whether the kernel took it.
  func write(_ file: ControlFile, _ text: String) -> Bool {
    guard let descriptor = descriptor(of: file, for: O_RDWR) ?? descriptor(of: file, for: O_WRONLY) else {
      return false
    }
    var text = text
    return text.withUTF8 { pwrite(descriptor, $0.baseAddress, $0.count, 0) == $0.count }
  }

  /// The descriptor of a control file, opened the first time (close-on-exec); a file that
  /// cannot be opened so is tried again no more than a file that can.
  private func descriptor(of file: ControlFile, for mode: Int32) -> Int32? {
    let known = files[file.rawValue]
    if known != notOpened { return known >= 0 ? known : nil }
    let descriptor = open(folder + "/" + file.name, mode | O_CLOEXEC)
    if descriptor >= 0 || mode != O_RDWR { files[file.rawValue] = descriptor }
    return descriptor >= 0 ? descriptor : nil
  }

  /// Closes every file it keeps open: the cgroup is being removed.
  func closeFiles() {
    if joinFile >= 0 { close(joinFile) }
    for descriptor in files where descriptor >= 0 { close(descriptor) }
    joinFile = -1
    joining = []
    files = [Int32](repeating: notOpened, count: ControlFile.allCases.count)
  }
}

/// The control files oprun reads or writes in a job's cgroup: cgroup v2's, then v1's.
enum ControlFile: Int, CaseIterable {
  case peak, current, reclaim, max, swapMax, cpuStat, events
  case maxUsage, usage, forceEmpty, limit, memoryAndSwapLimit, outOfMemoryControl

  var name: String {
    switch self {
    case .peak: "memory.peak"
    case .current: "memory.current"
    case .reclaim: "memory.reclaim"
    case .max: "memory.max"
    case .swapMax: "memory.swap.max"
    case .cpuStat: "cpu.stat"
    case .events: "memory.events"
    case .maxUsage: "memory.max_usage_in_bytes"
    case .usage: "memory.usage_in_bytes"
    case .forceEmpty: "memory.force_empty"
    case .limit: "memory.limit_in_bytes"
    case .memoryAndSwapLimit: "memory.memsw.limit_in_bytes"
    case .outOfMemoryControl: "memory.oom_control"
    }
  }
}

/// A control file not opened yet.
private let notOpened: Int32 = -2

/// Memory a former attempt left charged to a cgroup (page cache, kernel objects) beyond which
/// it is given back before reuse: below it, a later peak may read up to this much high.
private let chargedLeftWorthReclaiming = 4 << 20

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
