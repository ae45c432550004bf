import Foundation

/// The processes a run left behind, found in `/proc` by the token every one of them carries in
/// its environment (the manifest's `env` puts it there), and the zombies of its jobs' groups
/// (a zombie's environment can no longer be read, but its `stat` keeps its group). A zombie
/// whose parent is PID 1 is not counted: it is init's to reap, and the init of some
/// containers never does. Nor is one whose parent is this test process: the runtime's own
/// tests make it a child subreaper, so it inherits what a killed oprun left, and it reaps
/// those (they are dead; nobody else will).
struct RunLeftovers {
  /// One line per process: pid, state, group and command line.
  var processes: [String] { found.map(\.description) }
  private var found: [(pid: Int32, description: String)]

  init(token: String, groups: Set<Int32>) {
    let needle = Array(token.utf8)
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    found = entries.compactMap(Int32.init).sorted().compactMap { pid in
      guard pid != getpid(), let stat = ProcessStat(pid: pid) else { return nil }
      let isZombie = stat.state == "Z" || stat.state == "X"
      if isZombie, stat.parent == getpid(), groups.contains(stat.group) {
        waitpid(pid, nil, WNOHANG)
        return nil
      }
      let zombieOfRun = isZombie && groups.contains(stat.group) && stat.parent != 1
      guard zombieOfRun || Self.environment(of: pid).contains(needle) else { return nil }
      let commandLine = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map {
        String(decoding: $0.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
      }
      return (pid, "pid \(pid) state \(stat.state) group \(stat.group) \(stat.command): \(commandLine ?? "")")
    }
  }

  var isEmpty: Bool { found.isEmpty }

  /// Waits until nothing of the run is left, for at most `limit` seconds, and returns what is
  /// left then (empty when the run cleaned up after itself). What is left is then killed, so
  /// that it troubles neither the tests after this one nor the machine.
  static func awaitNone(token: String, groups: Set<Int32>, limit: Double) -> [String] {
    var left = RunLeftovers(token: token, groups: groups)
    let deadline = Date().addingTimeInterval(limit)
    while !left.isEmpty && Date() < deadline {
      usleep(50_000)
      left = RunLeftovers(token: token, groups: groups)
    }
    for process in left.found { kill(process.pid, SIGKILL) }
    return left.processes
  }

  private static func environment(of pid: Int32) -> [UInt8] {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")) else { return [] }
    return [UInt8](data)
  }
}

extension Array where Element == UInt8 {
  /// Whether `needle` occurs in these bytes.
  func contains(_ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
    return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
  }
}

extension OprunProcess {
  /// Waits until oprun has exited, by `/proc` (a zombie counts as exited): Foundation's
  /// `Process` may notice the exit only once every descendant has closed what it inherited,
  /// which a leftover process can delay for as long as it lives. False when `limit` passed first.
  func awaitExit(limit: Double) -> Bool {
    (try? waitUntil("oprun to exit", limit: limit) { !isAlive(pid) }) != nil
  }
}
