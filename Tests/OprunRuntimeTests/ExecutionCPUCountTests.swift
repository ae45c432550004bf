import Foundation
import Glibc
import OprunRuntime
import Testing

/// The CPU counts against the system's own tools: `getconf` for the CPUs online, `nproc`
/// for the ones this thread may run on (the default max-concurrent).
@Suite struct ExecutionCPUCountTests {
  /// The number `command` prints. A test child gets PATH alone, so OpenMP's variables,
  /// which nproc honours, cannot sway it.
  private func count(printedBy command: String) throws -> Int? {
    try runChild(command).text(of: .stdout).split(separator: "\n").first.flatMap { Int($0) }
  }

  @Test func onlineCPUsAreTheSystemsCount() throws {
    #expect(try CPUCount.online == count(printedBy: "getconf _NPROCESSORS_ONLN"))
  }

  @Test func availableCPUsAreWhatNprocCounts() throws {
    #expect(try CPUCount.available == count(printedBy: "nproc"))
  }

  /// What a thread narrowed to one CPU counted.
  private final class NarrowedCounts: @unchecked Sendable {
    var narrowed = false
    var available = 0
    var nproc: Int?
  }

  /// taskset narrows the mask of a thread made for the purpose, which then ends: no thread
  /// another test runs on, nor one it starts (which would inherit the mask), is narrowed.
  @Test func availableCPUsFollowTheThreadsAffinityMask() throws {
    let status = try #require(readTextFile("/proc/self/status"))
    let field = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
    let firstAllowed = try #require(field.split(separator: "\t").last.map { String($0.prefix { $0.isNumber }) })
    let counts = NarrowedCounts()
    let done = DispatchSemaphore(value: 0)
    Thread { [self] in
      defer { done.signal() }
      guard let thread = currentThreadID(),
        (try? runChild("taskset -p -c \(firstAllowed) \(thread)"))?.termination == .exited(0)
      else { return }
      counts.narrowed = true
      counts.available = CPUCount.available
      counts.nproc = try? count(printedBy: "nproc")
    }.start()
    done.wait()
    try #require(counts.narrowed, "taskset narrowed the thread's mask to CPU \(firstAllowed)")
    #expect(counts.available == 1)
    #expect(counts.nproc == 1, "a child inherits the mask")
  }

  /// The calling thread's id, the last part of what /proc/thread-self links to (`PID/task/TID`).
  private func currentThreadID() -> String? {
    var buffer = [CChar](repeating: 0, count: 64)
    let length = readlink("/proc/thread-self", &buffer, buffer.count)
    guard length > 0 else { return nil }
    let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return target.split(separator: "/").last.map(String.init)
  }
}
