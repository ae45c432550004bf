import Glibc
import OprunCore
import OprunRuntime
import Testing

@Suite struct ExecutionQoSTests {
  /// Whether this process may lower a niceness to `target` (CAP_SYS_NICE or RLIMIT_NICE).
  static func mayLowerNiceness(to target: Int32) -> Bool {
    let status = readTextFile("/proc/self/status") ?? ""
    let capabilities =
      status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }
      .flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) } ?? 0
    let capSysNice: UInt64 = 1 << 23
    if capabilities & capSysNice != 0 { return true }
    var limit = rlimit()
    let rlimitNice: UInt32 = 13  // RLIMIT_NICE, which Glibc's module leaves out
    getrlimit(__rlimit_resource_t(rlimitNice), &limit)
    return target >= 20 - Int32(clamping: limit.rlim_cur)
  }

  static func expectedNiceness(_ qos: QualityOfService, base: Int32) -> Int32 {
    let target = min(max(base + qos.scheduling.nicenessOffset, -20), 19)
    return target < base && !mayLowerNiceness(to: target) ? base : target
  }

  @Test(arguments: QualityOfService.allCases)
  func qosIsAppliedToTheShellAndItsChildrenBeforeTheCommandRuns(qos: QualityOfService) throws {
    let loop = EventLoop()
    let spawner = Spawner()
    let (process, record) = try startChild(
      "sleep 1000 & echo \"ready $!\"; wait", loop: loop, spawner: spawner, qos: qos)
    runLoop(loop) { record.text(of: .stdout).hasSuffix("\n") }
    defer {
      signalGroup(process.processGroup, SIGKILL)
      runLoop(loop) { record.termination != nil }
    }
    let grandchild = try #require(Int32(record.text(of: .stdout).dropFirst(6).dropLast()))
    let niceness = Self.expectedNiceness(qos, base: spawner.baseNiceness)
    let ioPriority = qos.scheduling.ioPriority ?? IOPriority.of(pid: getpid())
    for pid in [process.pid, grandchild] {
      #expect(procNiceness(of: pid) == niceness, "niceness of \(pid) for \(qos)")
      #expect(IOPriority.of(pid: pid) == ioPriority, "I/O priority of \(pid) for \(qos)")
    }
  }

  @Test func qosTableIsTheDocumentedOne() {
    #expect(QualityOfService.background.scheduling == Scheduling(nicenessOffset: 10, ioPriority: .idle))
    #expect(QualityOfService.utility.scheduling == Scheduling(nicenessOffset: 5, ioPriority: .bestEffort(7)))
    #expect(QualityOfService.default.scheduling == Scheduling(nicenessOffset: 0, ioPriority: nil))
    #expect(QualityOfService.userInitiated.scheduling == Scheduling(nicenessOffset: -2, ioPriority: .bestEffort(2)))
    #expect(QualityOfService.userInteractive.scheduling == Scheduling(nicenessOffset: -5, ioPriority: .bestEffort(0)))
  }

  @Test func ioPriorityRoundTripsThroughItsKernelValue() {
    #expect(IOPriority.idle.rawValue == 3 << 13)
    #expect(IOPriority.bestEffort(7).rawValue == 2 << 13 | 7)
    #expect(IOPriority(rawValue: 2 << 13 | 4) == .bestEffort(4))
    #expect(IOPriority(rawValue: 0) == IOPriority(.none))
  }
}
