import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Grouped output beyond its memory bound waits in a temporary file and is written from
/// it a piece at a time, byte for byte; without a file it stays in memory, with one warning.
@Suite struct ReportingKeptOutputTests {
  let graph = makeGraph(jobs: ["build", "test"])

  @Test func outputBeyondTheMemoryBoundGoesToAFileAndComesBackByteForByte() throws {
    var kept = KeptOutput()
    let storage = GroupedOutputStorage(memoryPerJob: 1000, folders: UnnamedFile.defaultFolders())
    let payload = pattern(300_000)
    for start in stride(from: 0, to: payload.count, by: 777) {
      #expect(kept.append(Array(payload[start..<min(start + 777, payload.count)]), storage: storage) == nil)
    }
    #expect(kept.isInFile)
    #expect(kept.memoryHeld < 1000 + KeptOutput.fileWriteSize)
    let out = CapturedOutput()
    kept.write(to: out.sink)
    out.sink.flush()
    #expect(out.bytes == payload)
  }

  @Test func aFileRangeIsWrittenInItsPlaceThroughAFullPipeAPieceAtATime() throws {
    let loop = EventLoop()
    let pipe = try TestPipe()
    pipe.shrink()
    let sink = OutputSink(fileDescriptor: pipe.writeEnd, loop: loop, highWaterMark: 64 << 10, lowWaterMark: 16 << 10)
    let file = try SpillFile.create(inFirstOf: UnnamedFile.defaultFolders()).get()
    let payload = pattern(300_000)
    _ = payload.withUnsafeBytes { file.append($0) }
    sink.write("before\n")
    sink.write(file, from: 1000, count: 250_000)
    sink.write("after\n")
    sink.flush()
    // Queued in a file, it counts as queued: the loop holds job output back meanwhile.
    #expect(sink.isCongested)
    #expect(loop.isHoldingBackOutput)
    let expected = Array("before\n".utf8) + payload[1000..<251_000] + Array("after\n".utf8)
    let received = collect(from: pipe.readEnd, on: loop, until: { $0.count == expected.count })
    #expect(received == expected)
    #expect(sink.isDrained)
    #expect(!loop.isHoldingBackOutput)
  }

  @Test func aBlockingSinkWritesAFileRangeWholeAmongTheBytesAroundIt() throws {
    let out = CapturedOutput()
    let file = try SpillFile.create(inFirstOf: UnnamedFile.defaultFolders()).get()
    let payload = pattern(200_000)
    _ = payload.withUnsafeBytes { file.append($0) }
    out.sink.write("a\n")
    out.sink.write(file, from: 0, count: payload.count)
    out.sink.write("b\n")
    out.sink.write(file, from: 5, count: 10)
    out.sink.flush()
    #expect(out.bytes == Array("a\n".utf8) + payload + Array("b\n".utf8) + payload[5..<15])
    #expect(out.sink.isDrained)
  }

  @Test func groupedBlocksBeyondTheMemoryBoundAreWholeAndInOrder() {
    let out = CapturedOutput()
    let storage = GroupedOutputStorage(memoryPerJob: 100, folders: UnnamedFile.defaultFolders())
    let reporter = HumanReporter(
      graph: graph, options: HumanOptions(outputMode: .grouped, verbosity: .quiet), out: out.sink,
      err: CapturedOutput().sink, groupedStorage: storage)
    let lines = (0..<20_000).map { "line \($0)\n" }
    for (index, line) in lines.enumerated() { reporter.observe(output(index % 2, line, at: 0.1)) }
    reporter.observe(transition(1, .executing, .finished, outcome: .succeeded, termination: .exited(0), at: 1))
    reporter.observe(transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), at: 2))
    let odd = lines.enumerated().filter { $0.offset % 2 == 1 }.map(\.element).joined()
    let even = lines.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
    #expect(out.text == "── test\n" + odd + "── build\n" + even)
  }

  @Test func withoutATemporaryFileGroupedOutputIsKeptInMemoryWithOneWarning() {
    let out = CapturedOutput()
    let err = CapturedOutput()
    let storage = GroupedOutputStorage(memoryPerJob: 10, folders: ["/nonexistent/oprun-test"])
    let reporter = HumanReporter(
      graph: graph, options: HumanOptions(outputMode: .grouped, verbosity: .quiet), out: out.sink, err: err.sink,
      groupedStorage: storage)
    let block = String(repeating: "0123456789abcdef\n", count: 10_000)
    reporter.observe(output(0, block, at: 0.1))
    reporter.observe(output(1, block, at: 0.2))
    reporter.observe(transition(0, .executing, .finished, outcome: .succeeded, termination: .exited(0), at: 1))
    reporter.observe(transition(1, .executing, .finished, outcome: .succeeded, termination: .exited(0), at: 2))
    #expect(out.text == "── build\n" + block + "── test\n" + block)
    #expect(err.lines.count == 1)
    #expect(err.text.hasPrefix("oprun: warning: cannot keep a job's output in a temporary file ("))
  }
}
