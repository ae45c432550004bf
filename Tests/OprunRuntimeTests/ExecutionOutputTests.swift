import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

@Suite struct ExecutionOutputTests {
  @Test func twoHundredMegabytesArriveRawWithNothingLost() throws {
    let loop = EventLoop()
    var received = 0
    let process = try Spawner().spawn(
      SpawnRequest(command: "head -c 200000000 /dev/zero", environment: SpawnEnvironment(testEnvironment))
    ).get()
    var termination: Termination?
    loop.watchProcess(
      process, output: .chunks, onOutput: { _, bytes in received += bytes.count }, onExit: { termination = $0 })
    runLoop(loop) { termination != nil }
    #expect(termination == .exited(0))
    #expect(received == 200_000_000)
  }

  @Test func manyLinesArriveWholeAndInOrder() throws {
    let record = try runChild("seq 1 200000")
    let lines = record.lines(of: .stdout)
    // How it ended tells a lost line from a child something else killed.
    #expect(record.termination == .exited(0))
    #expect(lines.count == 200_000)
    #expect(lines.enumerated().allSatisfy { $0.element == "\($0.offset + 1)\n" })
  }

  @Test func lastPartialLineIsDeliveredWithoutANewline() throws {
    let record = try runChild("printf 'one\\ntwo'; printf 'half' >&2")
    #expect(record.lines(of: .stdout) == ["one\n", "two"])
    #expect(record.lines(of: .stderr) == ["half"])
  }

  @Test func grandchildHoldingThePipeDoesNotDelayTheExit() throws {
    let loop = EventLoop()
    let (process, record) = try startChild("sleep 1000 & printf 'hi\\nbye'", loop: loop)
    runLoop(loop) { record.termination != nil }
    #expect(record.termination == .exited(0))
    #expect(record.lines(of: .stdout) == ["hi\n", "bye"])
    #expect(processGroupExists(process.processGroup), "the grandchild still holds the pipe")
    #expect(signalGroup(process.processGroup, SIGKILL))
    #expect(record.outputCallsAfterExit == 0)
  }

  @Test(arguments: [OutputFraming.chunks, .lines])
  func bytesWrittenBeforeExitAreNotLostWhileAGrandchildHoldsThePipe(framing: OutputFraming) throws {
    for _ in 0..<10 {
      let loop = EventLoop()
      let (process, record) = try startChild(
        "sleep 1000 & head -c 300000 /dev/zero | tr '\\0' x; printf end", loop: loop, framing: framing)
      runLoop(loop) { record.termination != nil }
      signalGroup(process.processGroup, SIGKILL)
      let output = record.bytes(of: .stdout)
      #expect(output.count == 300_003)
      #expect(output.suffix(3) == Array("end".utf8)[...])
    }
  }

  @Test func leftoverOutputAfterExitIsDeliveredWithoutBreakingTheWriter() throws {
    let loop = EventLoop()
    let directory = try makeTemporaryDirectory()
    defer { removeTree(directory) }
    // The grandchild writes once oprun has reaped the shell (kill -0 holds for a zombie),
    // then records whether its write succeeded (aside, then renamed: the test waits for the
    // file and must not read it before the status is in it).
    let script = """
      shell=$$
      (trap '' PIPE; while kill -0 $shell 2>/dev/null; do sleep 0.01; done
       echo late; echo $? > \(directory)/status.part; mv \(directory)/status.part \(directory)/status; exec sleep 1000) &
      echo early
      """
    let leftovers = LeftoverOutput()
    let (process, record) = try startChild(script, loop: loop, leftovers: leftovers)
    runLoop(loop) { record.termination != nil }
    #expect(!leftovers.isEmpty, "the grandchild holds the pipe")
    runLoop(loop) { record.lines(of: .stdout).count == 2 }
    let status = directory + "/status"
    runLoop(loop, checkingEvery: 0.01) { fileExists(status) }
    signalGroup(process.processGroup, SIGKILL)
    #expect(readTextFile(status) == "0\n")
    #expect(record.lines(of: .stdout) == ["early\n", "late\n"])
    #expect(record.outputCallsAfterExit == 1)
  }

  @Test func aPipeStillHeldWhenTheRunEndsIsReadALastTimeAndClosed() throws {
    let loop = EventLoop()
    let directory = try makeTemporaryDirectory()
    defer { removeTree(directory) }
    // The grandchild writes a line and a partial one, then, once the test has closed the
    // pipe, tries to write again and records how that went.
    let script = """
      (trap '' PIPE; while [ ! -f \(directory)/go ]; do sleep 0.01; done
       echo late; printf partial; touch \(directory)/said
       while [ ! -f \(directory)/closed ]; do sleep 0.01; done
       echo after-close; echo $? > \(directory)/status.part; mv \(directory)/status.part \(directory)/status; exec sleep 1000) &
      echo early
      """
    let leftovers = LeftoverOutput()
    let (process, record) = try startChild(script, loop: loop, leftovers: leftovers)
    defer { signalGroup(process.processGroup, SIGKILL) }
    runLoop(loop) { record.termination != nil }
    #expect(record.lines(of: .stdout) == ["early\n"])
    // Held back, the loop reads nothing more: only the last read can take what follows.
    loop.holdBackOutput()
    touchFile(directory + "/go")
    runLoop(loop, checkingEvery: 0.01) { fileExists(directory + "/said") }
    leftovers.readLastAndClose()
    loop.releaseOutput()
    #expect(leftovers.isEmpty)
    #expect(record.lines(of: .stdout) == ["early\n", "late\n", "partial"])
    touchFile(directory + "/closed")
    let status = directory + "/status"
    runLoop(loop, checkingEvery: 0.01) { fileExists(status) }
    #expect(readTextFile(status) != "0\n", "the grandchild's write after the close fails")
    #expect(record.lines(of: .stdout).count == 3)
  }

  @Test func aProcessWhosePipesEndWithItIsNoLeftover() throws {
    let loop = EventLoop()
    let leftovers = LeftoverOutput()
    let (_, record) = try startChild("echo done", loop: loop, leftovers: leftovers)
    runLoop(loop) { record.termination != nil }
    #expect(leftovers.isEmpty)
    #expect(record.lines(of: .stdout) == ["done\n"])
  }
}

@Suite struct ExecutionLineSplitterTests {
  func split(_ chunks: [String], maximumLength: Int = 1 << 20, endings: LineEndings = .newline) -> [String] {
    var splitter = LineSplitter(maximumLength: maximumLength, endings: endings)
    var lines: [String] = []
    for chunk in chunks {
      splitter.split(Array(chunk.utf8)[...]) { lines.append(String(decoding: $0, as: UTF8.self)) }
    }
    splitter.finish { lines.append(String(decoding: $0, as: UTF8.self)) }
    return lines
  }

  @Test func linesSpanningChunksAreJoined() {
    #expect(split(["ab", "c\nde", "f\n", "\n", "g"]) == ["abc\n", "def\n", "\n", "g"])
  }

  @Test func overlongLinesArriveInPiecesThatAddUp() {
    #expect(split(["abcdefg", "hij\nk"], maximumLength: 4) == ["abcd", "efgh", "ij\n", "k"])
  }

  @Test func concatenationGivesBackTheStream() {
    let stream = (0..<500).map { "line \($0) " + String(repeating: "z", count: $0 % 37) + "\n" }.joined() + "tail"
    let chunks = Self.cut(stream) { $0 % 97 + 13 }
    #expect(split(chunks, maximumLength: 20).joined() == stream)
  }

  /// `stream` cut into chunks of changing sizes, as reads of a pipe cut it: the first of one
  /// byte, each next one's size computed from the last's.
  static func cut(_ stream: String, nextSize: (Int) -> Int) -> [String] {
    let bytes = Array(stream.utf8)
    var chunks: [String] = []
    var index = 0
    var size = 1
    while index < bytes.count {
      let end = min(index + size, bytes.count)
      chunks.append(String(decoding: bytes[index..<end], as: UTF8.self))
      index = end
      size = nextSize(size)
    }
    return chunks
  }
}

extension ExecutionLineSplitterTests {
  @Test func noPieceIsLongerThanTheMaximum() {
    let pieces = split(["0123456789ab\n", "cdefghijklmnopq", "rstuvwxyz\n"], maximumLength: 5)
    #expect(pieces.allSatisfy { $0.utf8.count <= 5 })
    #expect(pieces.joined() == "0123456789ab\ncdefghijklmnopqrstuvwxyz\n")
  }

  @Test func aCarriageReturnEndsALineWhenAsked() {
    let progress = ["10%\r20", "%\r30%\r\n", "done\n", "\rstill"]
    #expect(
      split(progress, endings: .newlineOrReturn) == ["10%\r", "20%\r", "30%\r\n", "done\n", "\r", "still"])
    #expect(split(progress) == ["10%\r20%\r30%\r\n", "done\n", "\rstill"])
    // A return that ends a chunk ends its line at once: the next update may be long in coming.
    #expect(split(["50%\r", "60%\r"], endings: .newlineOrReturn) == ["50%\r", "60%\r"])
  }

  @Test func linesEndedEitherWayAddUpToTheStream() {
    let stream =
      (0..<800).map { "step \($0) " + String(repeating: "r", count: $0 % 41) + ($0 % 3 == 0 ? "\r" : "\n") }
      .joined() + "tail"
    let chunks = Self.cut(stream) { $0 % 89 + 7 }
    let lines = split(chunks, maximumLength: 30, endings: .newlineOrReturn)
    #expect(lines.joined() == stream)
    #expect(lines.allSatisfy { $0.utf8.count <= 30 })
    // Every piece but the last ends a line or is as long as a piece can be.
    #expect(lines.dropLast().allSatisfy { $0.hasSuffix("\n") || $0.hasSuffix("\r") || $0.utf8.count == 30 })
  }
}
