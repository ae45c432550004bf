import Glibc
import OprunCore
import OprunRuntime
import Testing

/// Throughput and per-spawn cost of the process layer. Opt-in (`OPRUN_BENCH=1`), best in
/// release: `OPRUN_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter ExecutionBenchmark`.
/// They print their numbers; they fail only if something is lost.
@Suite(.serialized, .enabled(if: getenv("OPRUN_BENCH") != nil))
struct ExecutionBenchmarkTests {
  /// Starts `count` children, `width` at a time, draining their pipes; returns seconds.
  func spawnLoop(count: Int, width: Int, request: SpawnRequest) throws -> Double {
    let loop = EventLoop()
    let spawner = Spawner()
    var started = 0
    var finished = 0
    var failures = 0
    func startOne() throws {
      let process = try spawner.spawn(request).get()
      started += 1
      loop.watchProcess(
        process, output: .chunks, onOutput: { _, _ in },
        onExit: { termination in
          finished += 1
          if termination != .exited(0) { failures += 1 }
          if started < count { try? startOne() }
        })
    }
    let begin = MonotonicClock.now()
    for _ in 0..<width { try startOne() }
    loop.run { finished == count }
    let elapsed = MonotonicClock.now() - begin
    #expect(failures == 0)
    return elapsed
  }

  @Test(arguments: [
    ("/bin/sh", "true", QualityOfService.default), ("/bin/sh", "true", .background), ("/bin/true", "", .default),
  ])
  func spawnCost(shell: String, command: String, qos: QualityOfService) throws {
    let request = SpawnRequest(command: command, environment: ["PATH=/usr/bin:/bin"], qos: qos, shell: shell)
    let elapsed = try spawnLoop(count: 2000, width: 2, request: request)
    print("spawn: 2000 x \(shell) \(command) (\(qos)), 2 at a time: \(elapsed / 2) ms per job")
  }

  @Test(arguments: [OutputFraming.chunks, .lines])
  func outputThroughput(framing: OutputFraming) throws {
    let command =
      "yes 0123456789012345678901234567890123456789012345678901234567890123456789012345678 | head -c 200000000"
    let loop = EventLoop()
    let process = try Spawner().spawn(SpawnRequest(command: command, environment: ["PATH=/usr/bin:/bin"])).get()
    var bytes = 0
    var deliveries = 0
    var termination: Termination?
    let begin = MonotonicClock.now()
    loop.watchProcess(
      process, output: framing,
      onOutput: { _, slice in
        bytes += slice.count
        deliveries += 1
      }, onExit: { termination = $0 })
    loop.run { termination != nil }
    let elapsed = MonotonicClock.now() - begin
    #expect(bytes == 200_000_000)
    if framing != .chunks { #expect(deliveries == 2_500_000) }
    print("output \(framing): 200 MB in \(elapsed) s = \(200 / elapsed) MB/s, \(deliveries) deliveries")
  }
}
