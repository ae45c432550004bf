import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// The children file is read again at every look, through the one descriptor it keeps open:
/// each look lists the children of that moment, not those of the first look.
@Suite struct ExecutionAdoptedChildrenTests {
  @Test func eachLookListsTheChildrenOfThatMoment() throws {
    let adopted = AdoptedChildren(thread: try threadID())
    let spawner = Spawner()
    let first = try spawner.spawn(SpawnRequest(command: "sleep 30", environment: [])).get()
    defer { end(first) }
    #expect(groups(adopted).contains(first.pid))
    let skipping = adopted.groups { $0 == first.pid }.map { $0.group }
    #expect(!skipping.contains(first.pid), "a known child is skipped")

    let second = try spawner.spawn(SpawnRequest(command: "sleep 30", environment: [])).get()
    defer { end(second) }
    #expect(groups(adopted).isSuperset(of: [first.pid, second.pid]))

    end(first)
    let after = groups(adopted)
    #expect(!after.contains(first.pid) && after.contains(second.pid))
  }

  /// This thread's id, from /proc/thread-self (a link to `PID/task/TID`).
  private func threadID() throws -> pid_t {
    var buffer = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
    let link = String(decoding: buffer[0..<max(count, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return try #require(link.split(separator: "/").last.flatMap { pid_t($0) })
  }

  private func groups(_ adopted: AdoptedChildren) -> Set<Int32> {
    Set(adopted.groups { _ in false }.map(\.group))
  }

  /// Kills and reaps `process` (once: a second call finds nothing to do).
  private func end(_ process: SpawnedProcess) {
    guard kill(-process.pid, SIGKILL) == 0 else { return }
    waitpid(process.pid, nil, 0)
    for fd in [process.pidfd, process.stdout, process.stderr].compactMap({ $0 }) { close(fd) }
  }
}
