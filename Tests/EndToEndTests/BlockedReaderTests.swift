import Foundation
import Testing

/// oprun's standard output read slowly, not at all, or closed (SPEC §2, §3.4): signals and
/// timeouts are served whatever the reader does, and nothing the jobs wrote is lost.
@Suite struct BlockedReaderTests {
  @Test func signalsAndTimeoutsAreServedWhileNobodyReadsAndEveryByteArrivesAfterwards() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 3
      jobs:
        first: {command: exec seq 1 3000000}
        second: {command: exec seq 1 3000000}
        limited: {command: 'exec yes "$(printf %01000d 7)"', timeout: 1s}
      """)
    let grace = 2.0
    let reader = try UnreadPipe(in: folder)
    let oprun = try OprunProcess(
      runArguments(["--grace", "\(grace)"]), in: folder, standardOutput: reader.writeHandle())
    reader.closeWriteEnd()
    try folder.waitUntilExecuting("first")
    try folder.waitUntilExecuting("second")
    try waitUntil("oprun's output waiting in its pipe") { reader.holdsOutput }
    let writers = try ["first", "second"].map { try #require(folder.events.pids(of: $0).first) }
    try waitUntil("the jobs blocked writing their output") { writers.allSatisfy(isBlockedWritingAPipe) }

    try waitUntil("limited timed out") { folder.events.finish(of: "limited") != nil }
    let timedOut = try #require(folder.events.finish(of: "limited"))
    #expect(timedOut.string("outcome") == "timed-out")
    #expect(try #require(timedOut["duration"] as? Double) >= 1)
    let writtenBeforeSignal = writers.map(bytesWritten(by:))
    oprun.send(SIGINT)
    let groups = folder.events.jobGroups
    // The jobs stay blocked in their writes for as long as nobody reads, so they are gone only
    // if oprun serves the signal meanwhile; no deadline tighter than waitUntil's own is needed
    // (grace + 1 s failed on a machine loaded far past its two cores).
    try waitUntil("no job process left") { groups.allSatisfy(processGroupIsGone) }
    #expect(isAlive(oprun.pid), "oprun waits for its reader")

    let output = try reader.readToEnd()
    try waitUntil("oprun ended") { !oprun.process.isRunning }
    let run = oprun.wait()
    #expect(run.signal == SIGINT, "status \(run.status)")
    for (job, written) in zip(["first", "second"], writtenBeforeSignal) {
      let received = try #require(seqOutput(of: job, in: output), "\(job)'s lines are 1, 2, 3, … with none missing")
      if let written { #expect(received >= written, "\(job) wrote \(written) bytes, \(received) arrived") }
    }
    // Long lines: what its pipe holds when the timeout ends it is drained in few lines, as
    // fast in an instrumented oprun as in a release build.
    let limitedLines = output.split(separator: "\n").filter { $0.hasPrefix("limited | ") }.map { $0.dropFirst(10) }
    let line = String(repeating: "0", count: 999) + "7"
    #expect(!limitedLines.isEmpty && limitedLines.dropLast().allSatisfy { $0 == line } && line.hasPrefix(limitedLines.last ?? "-"))
    let summary = try #require(output.split(separator: "\n").last { $0.contains("summary:") })
    #expect(summary.contains("1 timed out") && summary.contains("2 cancelled") && summary.hasSuffix("exit 130"))

    let log = folder.events
    for job in ["first", "second"] {
      #expect(log.outcome(of: job) == "cancelled")
      #expect(log.cancelReason(of: job) == "interrupt")
    }
    #expect(log.finishedExitCode == 130)
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }

  @Test func aClosedReaderCancelsTheRunAsSIGTERMDoesAndOprunEndsBySIGPIPE() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        first:
          command: trap 'touch first.trapped; exit 3' TERM; seq 1 300000000
          completion: echo "$OPRUN_JOB_STATUS" > first.completion
        second:
          command: trap 'touch second.trapped; exit 3' TERM; seq 1 300000000
      """)
    let reader = try UnreadPipe(in: folder)
    let oprun = try OprunProcess(runArguments(["--grace", "5"]), in: folder, standardOutput: reader.writeHandle())
    reader.closeWriteEnd()
    try folder.waitUntilJob("first", runs: "seq")
    try folder.waitUntilJob("second", runs: "seq")
    try waitUntil("oprun's output waiting in its pipe") { reader.holdsOutput }
    reader.closeReadEnd()
    try waitUntil("oprun ended") { !oprun.process.isRunning }
    let run = oprun.wait()

    #expect(run.signal == SIGPIPE, "status \(run.status)")
    for job in ["first", "second"] {
      #expect(folder.exists("\(job).trapped"), "\(job) got SIGTERM")
      #expect(folder.events.outcome(of: job) == "cancelled")
      #expect(folder.events.cancelReason(of: job) == "terminate")
    }
    #expect(folder.read("first.completion") == "cancelled\n")
    #expect(folder.events.finishedExitCode == 128 + Int(SIGPIPE))
    expectStreamContract(folder.events)
    expectNoProcessLeft(folder.events)
  }

  @Test func aClosedReaderOfTheEventStreamOnStandardOutputEndsTheRunTheSameWay() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        waiter:
          command: touch ready; while [ ! -f go ]; do sleep 0.01; done
        sleeper:
          command: trap 'touch sleeper.trapped; exit 3' TERM; touch sleeper.ready; while :; do sleep 0.01; done
      """)
    let reader = try UnreadPipe(in: folder)
    let oprun = try OprunProcess(["jobs.yaml", "--events", "-"], in: folder, standardOutput: reader.writeHandle())
    reader.closeWriteEnd()
    try folder.waitUntilExists("ready")
    try folder.waitUntilExists("sleeper.ready")
    reader.closeReadEnd()
    // The next event (waiter finishing) meets the closed pipe.
    folder.touch("go")
    try waitUntil("oprun ended") { !oprun.process.isRunning }
    let run = oprun.wait()

    #expect(run.signal == SIGPIPE, "status \(run.status)")
    #expect(folder.exists("sleeper.trapped"), "sleeper got SIGTERM")
    let cancelled = run.stderr.split(separator: "\n").filter { $0.contains("cancelled") && $0.contains("sleeper") }
    #expect(cancelled.first?.hasSuffix("(terminate)") == true, "\(run.stderr)")
  }

  @Test func aSignalWhileTheLastOutputWaitsForItsReaderEndsOprunAtOnce() throws {
    let folder = try Scratch()
    // About 400 KiB of prefixed lines: under oprun's high-water mark, so the job finishes,
    // and far more than the pipe holds.
    try folder.manifest("jobs: {chatty: {command: exec seq 1 30000}}")
    let reader = try UnreadPipe(in: folder)
    let oprun = try OprunProcess(runArguments(), in: folder, standardOutput: reader.writeHandle())
    reader.closeWriteEnd()
    try waitUntil("the run finished") { folder.events.finishedExitCode != nil }
    #expect(isAlive(oprun.pid), "oprun waits for its reader")
    oprun.send(SIGTERM)
    try waitUntil("oprun ended") { !oprun.process.isRunning }
    let run = oprun.wait()

    #expect(run.signal == SIGTERM, "status \(run.status)")
    #expect(folder.events.finishedExitCode == 0)
    expectStreamContract(folder.events)
  }

  @Test(arguments: [["--events", "/dev/full"], ["--trace", "/dev/full", "--events", eventsFile]])
  func aFileThatCannotBeWrittenGetsOneWarningAndTheRunGoesOn(_ options: [String]) throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        first: {command: echo one}
        second: {command: echo two, dependencies: [first]}
      """)
    let run = try runOprun(["jobs.yaml"] + options, in: folder)
    #expect(run.status == 0)
    #expect(run.stderr == "oprun: warning: cannot write '/dev/full': No space left on device\n")
    #expect(run.stdout.contains("second | two"))
    #expect(run.stdout.contains("summary: 2 jobs · 2 succeeded"))
    if options.contains(eventsFile) { expectStreamContract(folder.events) }
  }
}

/// A pipe (a FIFO in the scratch folder, so both ends are close-on-exec from the start) that
/// holds 4 KiB and that nobody reads until the test says so.
final class UnreadPipe: @unchecked Sendable {
  private var readEnd: Int32
  private var writeEnd: Int32
  static let size: Int32 = 4096

  init(in folder: Scratch) throws {
    let path = folder.path("stdout.fifo")
    guard mkfifo(path, 0o600) == 0 else { throw FIFOError() }
    readEnd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    writeEnd = open(path, O_WRONLY | O_CLOEXEC)
    guard readEnd >= 0, writeEnd >= 0 else { throw FIFOError() }
    _ = fcntl(readEnd, F_SETFL, 0)
    _ = fcntl(writeEnd, 1031, Self.size)  // F_SETPIPE_SZ, which Glibc's module does not export
  }

  deinit {
    closeWriteEnd()
    closeReadEnd()
  }

  /// The write end, for the child; the handle does not close it.
  func writeHandle() -> FileHandle { FileHandle(fileDescriptor: writeEnd, closeOnDealloc: false) }

  func closeWriteEnd() {
    if writeEnd >= 0 { close(writeEnd) }
    writeEnd = -1
  }

  func closeReadEnd() {
    if readEnd >= 0 { close(readEnd) }
    readEnd = -1
  }

  /// Whether something was written and waits to be read. (Whether the pipe is full does not
  /// show from here: a write that does not fit the last page's room waits for a free page,
  /// so a full one-page pipe may hold less than a page.)
  var holdsOutput: Bool {
    var count: Int32 = 0
    return ioctl(readEnd, UInt(FIONREAD), &count) == 0 && count > 0
  }

  /// Everything until every writer has closed it; a writer that never does fails the test
  /// after `limit` seconds without a byte, rather than hang it.
  func readToEnd(limit: Int32 = 60) throws -> String {
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 65_536)
    while true {
      var request = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
      guard poll(&request, 1, limit * 1000) != 0 else { throw WaitFailure(what: "the end of oprun's output") }
      let count = block.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += block[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// Whether `pid` sleeps in a write to a full pipe (`/proc/PID/wchan` is `pipe_write`, or
/// `anon_pipe_write` on newer kernels). True when the kernel does not say (it reads `0`).
func isBlockedWritingAPipe(_ pid: Int32) -> Bool {
  guard let wchan = try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8) else { return false }
  return wchan == "0" || wchan.hasSuffix("pipe_write")
}

/// The bytes `pid` has written so far (`wchar` of `/proc/PID/io`), or nil when not readable.
func bytesWritten(by pid: Int32) -> Int? {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return nil }
  let line = text.split(separator: "\n").first { $0.hasPrefix("wchar:") }
  return line.flatMap { Int($0.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces)) }
}

/// The bytes `seq 1 N` wrote that `job`'s prefixed lines in `output` stand for, when they are
/// exactly 1, 2, 3, … k, the last one possibly cut short (the job was killed mid-line, and
/// oprun ended the partial line); nil when a line is missing, repeated or wrong.
func seqOutput(of job: String, in output: String) -> Int? {
  let prefix = "\(job) | "
  let texts = output.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { $0.dropFirst(prefix.count) }
  guard let last = texts.last else { return nil }
  var bytes = 0
  for (index, text) in texts.dropLast().enumerated() {
    guard text == String(index + 1) else { return nil }
    bytes += text.count + 1
  }
  let expected = String(texts.count)
  guard expected.hasPrefix(last) else { return nil }
  return bytes + last.count + (last == expected ? 1 : 0)
}
