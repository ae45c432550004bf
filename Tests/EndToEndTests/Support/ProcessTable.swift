import Foundation

/// What `/proc/PID/stat` says about one process.
struct ProcessStat {
  /// The executable's name as the kernel keeps it (field 2): it changes at exec.
  var command: String
  /// `R`, `S`, `T`, `Z`, … (field 3).
  var state: Character
  /// The parent's pid (field 4).
  var parent: Int32
  /// The process group (field 5).
  var group: Int32
  /// The niceness (field 19).
  var niceness: Int

  /// The process's line in `/proc`, or nil when there is no such process.
  init?(pid: Int32) {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
    self.init(statLine: text)
  }

  /// Fields after the command name, which is in parentheses and may itself hold spaces.
  init?(statLine: String) {
    guard let open = statLine.firstIndex(of: "("), let close = statLine.lastIndex(of: ")") else { return nil }
    self.command = String(statLine[statLine.index(after: open)..<close])
    let fields = statLine[statLine.index(after: close)...].split(separator: " ")
    // fields[0] is field 3 of the line.
    guard fields.count > 16, let state = fields[0].first, let parent = Int32(fields[1]), let group = Int32(fields[2]),
      let niceness = Int(fields[16])
    else { return nil }
    self.state = state
    self.parent = parent
    self.group = group
    self.niceness = niceness
  }
}

/// Whether `pid` is a live process: it exists and is not a zombie. A zombie has done all
/// it will ever do; orphans here are reaped by PID 1 only now and then.
func isAlive(_ pid: Int32) -> Bool {
  guard let stat = ProcessStat(pid: pid) else { return false }
  return stat.state != "Z" && stat.state != "X"
}

/// Whether every live process of `group` is stopped. A shell that vforked a child the stop
/// caught before it exec'd waits for that child in state `D`, and cannot run on until
/// the child does: it counts as stopped.
func everyMemberIsStopped(ofGroup group: Int32) -> Bool {
  let members = liveMembers(ofGroup: group).compactMap { pid in ProcessStat(pid: pid).map { (pid: pid, stat: $0) } }
  return !members.isEmpty
    && members.allSatisfy { member in
      member.stat.state == "T"
        || (member.stat.state == "D"
          && members.contains { $0.stat.parent == member.pid && $0.stat.state == "T" })
    }
}

/// The live (non-zombie) processes of process group `group`, found in `/proc`.
func liveMembers(ofGroup group: Int32) -> [Int32] {
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  return entries.compactMap(Int32.init).filter { pid in
    guard let stat = ProcessStat(pid: pid) else { return false }
    return stat.group == group && stat.state != "Z" && stat.state != "X"
  }
}

/// Whether a live process of `group` has exec'd `command`: a job that reached it is past
/// its shell's start-up and fork, where a signal can be caught and lost.
func groupRuns(_ group: Int32, command: String) -> Bool {
  liveMembers(ofGroup: group).contains { ProcessStat(pid: $0)?.command == command }
}

/// Whether the kernel knows no process at all in `group`: `kill(-group, 0)` fails with ESRCH.
func processGroupIsGone(_ group: Int32) -> Bool {
  kill(-group, 0) == -1 && errno == ESRCH
}

/// This process's niceness.
func ownNiceness() -> Int {
  ProcessStat(pid: getpid())?.niceness ?? 0
}

/// The live watchdogs (SPEC §3.4) of the runs started with `entry` (`NAME=value`) in their
/// environment: a watchdog is a copy of its oprun, environment included.
func liveWatchdogs(withEnvironment entry: String) -> [Int32] {
  liveHelpers(named: "oprun-watchdog", withEnvironment: entry)
}

/// The live processes named `command` (a helper program oprun starts with its own environment)
/// of the runs started with `entry` (`NAME=value`) in their environment.
func liveHelpers(named command: String, withEnvironment entry: String) -> [Int32] {
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  return entries.compactMap(Int32.init).filter { pid in
    guard let stat = ProcessStat(pid: pid), stat.command == command, stat.state != "Z", stat.state != "X",
      let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
    else { return false }
    return environment.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == entry }
  }
}
