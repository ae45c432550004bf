import Foundation
import Testing

/// Job output through pipes: nothing lost, three modes (SPEC §2), and a job whose
/// grandchild keeps its pipe open (SPEC §3.4).
@Suite struct OutputTests {
  /// `left` writes a line, then waits for the test; `right` writes three lines (one to
  /// standard error) once left's first line is out, and finishes.
  static let interleaving = """
    max-concurrent: 2
    jobs:
      left:
        command: echo left-1; touch left-1; while [ ! -f go ]; do sleep 0.01; done; echo left-2; printf 'left-partial'
      right:
        command: while [ ! -f left-1 ]; do sleep 0.01; done; echo right-1; echo right-err >&2; echo right-2
    """

  @Test func prefixedOutputPutsTheJobBeforeEveryLineIncludingAPartialLastOne() throws {
    let folder = try Scratch()
    try folder.manifest(Self.interleaving)
    let oprun = try OprunProcess(runArguments(), in: folder)
    // Printed as it comes: left's first line shows while left still runs.
    try waitUntil("left's first line") { oprun.standardOutput.contains("left | left-1\n") }
    #expect(folder.events.finish(of: "left") == nil)
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n").map(String.init)
    #expect(lines.filter { $0.hasPrefix("left | ") } == ["left | left-1", "left | left-2", "left | left-partial"])
    let right = lines.filter { $0.hasPrefix("right | ") }
    #expect(Set(right) == ["right | right-1", "right | right-err", "right | right-2"])
    #expect(right.firstIndex(of: "right | right-1")! < right.firstIndex(of: "right | right-2")!)
  }

  @Test func groupedOutputPrintsEachJobsOutputAsOneBlockWhenItFinishes() throws {
    let folder = try Scratch()
    try folder.manifest(Self.interleaving)
    let oprun = try OprunProcess(runArguments(["--output", "grouped"]), in: folder)
    try waitUntil("right's block") { oprun.standardOutput.contains("── right\n") }
    // left wrote its first line before right began, but is not finished: nothing of it shows.
    #expect(!oprun.standardOutput.contains("left-1"))
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0)
    #expect(run.stdout.contains("── left\nleft-1\nleft-2\nleft-partial\n"), "\(run.stdout)")
    let rightBlock = try #require(run.stdout.range(of: "── right\n"))
    let rightLines = run.stdout[rightBlock.upperBound...].split(separator: "\n").prefix(3).map(String.init)
    #expect(Set(rightLines) == ["right-1", "right-err", "right-2"], "\(run.stdout)")
  }

  /// A line an attempt leaves unfinished is ended in the job's block: the next attempt's
  /// first line, or another command's, starts a line of its own (SPEC §2, lines never torn).
  @Test(arguments: ["grouped", "raw", "prefixed"])
  func aLineAnAttemptLeftUnfinishedIsNotGluedToTheNextAttempts(mode: String) throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        flaky:
          command: if [ -e tried ]; then echo second; else touch tried; printf partial; exit 1; fi
          retries: 1
      """)
    let run = try runOprun(runArguments(["--output", mode]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map { $0.replacing("flaky | ", with: "") }
    #expect(lines.contains("partial") && lines.contains("second"), "\(run.stdout)")
    #expect(!run.stdout.contains("partialsecond"), "\(run.stdout)")
  }

  @Test func rawOutputPassesTwoHundredMegabytesThroughWithNothingLost() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        flood: {command: "head -c 200000000 /dev/zero | tr '\\\\0' Q"}
      """)
    let run = try OprunProcess(runArguments(["--output", "raw", "-q"]), in: folder)
    let finished = run.wait()
    #expect(finished.status == 0)
    let size = try FileManager.default.attributesOfItem(atPath: run.stdoutPath)[.size] as? Int ?? 0
    #expect(size >= 200_000_000)
    #expect(try countBytes("Q", in: run.stdoutPath) == 200_000_000)
    #expect(folder.events.outcome(of: "flood") == "succeeded")
  }

  @Test func aJobFinishesWhenItsOwnProcessExitsEvenIfAGrandchildHoldsItsPipe() throws {
    let folder = try Scratch()
    // `holder` leaves a child behind that keeps its output pipe open and records SIGTERM;
    // `waiter` keeps the run going until the test has looked.
    try folder.manifest(
      """
      jobs:
        holder:
          command: sh -c 'trap "touch leftover.got-term; exit" TERM; while :; do sleep 0.02; done' & echo $! > leftover.pid; echo started
        waiter:
          command: while [ ! -f go ]; do sleep 0.01; done
          dependencies: [holder]
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "5"]), in: folder)
    try folder.waitUntilFinished("holder")
    let leftover = try #require(
      folder.read("leftover.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
    #expect(isAlive(leftover), "the grandchild still runs after its job finished")
    #expect(folder.events.outcome(of: "holder") == "succeeded")
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0)
    #expect(run.stdout.contains("holder | started"))
    #expect(folder.exists("leftover.got-term"), "the leftover got SIGTERM when the run ended")
    #expect(!isAlive(leftover))
    let log = folder.events
    expectStreamContract(log)
    expectNoProcessLeft(log)
  }
}

/// What a job started and detached with `setsid` is no longer the run's: it outlives it.
@Suite struct DetachedProcessTests {
  @Test func aProcessDetachedWithSetsidOutlivesTheRun() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        daemon:
          command: setsid sh -c 'echo $$ > daemon.pid; exec sleep 30' & while [ ! -s daemon.pid ]; do sleep 0.01; done
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    // Foundation's Process learns of an exit through a descriptor its child inherits,
    // which the daemon holds too: watch oprun itself end instead.
    try waitUntil("oprun to end") { !isAlive(oprun.pid) }
    let daemon = try #require(
      folder.read("daemon.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
    #expect(isAlive(daemon), "a setsid daemon is left alone when the run ends")
    kill(daemon, SIGKILL)
    #expect(oprun.wait().status == 0)
  }
}

/// How many bytes of `path` are `character`, counted by `tr` and `wc` without reading the
/// file into this process.
func countBytes(_ character: Character, in path: String) throws -> Int {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/sh")
  process.arguments = ["-c", "tr -cd '\(character)' < \"$1\" | wc -c", "sh", path]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

/// Grouped output is kept in memory only up to a bound per job; the rest waits in a
/// temporary file and is copied from it when the block is printed.
@Suite struct GroupedOutputMemoryTests {
  @Test func aJobsSixtyFourMegabyteBlockIsByteExactAndCostsOprunLittleMemory() throws {
    let folder = try Scratch()
    // `before` and `after` read oprun's peak resident size around `big`, which also keeps
    // a copy of what it writes.
    try folder.manifest(
      """
      max-concurrent: 1
      jobs:
        before: {command: "grep VmHWM /proc/$PPID/status > before.txt"}
        big:
          command: head -c 48000000 /dev/urandom | base64 -w 4000 | tee expected.txt
          dependencies: [before]
        after: {command: "grep VmHWM /proc/$PPID/status > after.txt", dependencies: [big]}
      """)
    let oprun = try OprunProcess(runArguments(["--output", "grouped", "-q"]), in: folder)
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.isEmpty, "\(run.stderr)")
    let expected = try Data(contentsOf: URL(fileURLWithPath: folder.path("expected.txt")))
    let printed = try Data(contentsOf: URL(fileURLWithPath: oprun.stdoutPath))
    let header = Data("── big\n".utf8)
    let start = try #require(printed.range(of: header)).upperBound
    #expect(printed.count >= start + expected.count)
    #expect(printed.subdata(in: start..<min(start + expected.count, printed.count)) == expected)

    func kilobytes(_ name: String) -> Int? {
      folder.read(name).flatMap { Int($0.filter(\.isNumber)) }
    }
    let before = try #require(kilobytes("before.txt"))
    let after = try #require(kilobytes("after.txt"))
    let growth = (after - before) * 1024
    print("grouped output of \(expected.count) bytes: oprun's peak resident size \(before) kB -> \(after) kB")
    #expect(growth < expected.count / 2, "oprun grew by \(growth) bytes for \(expected.count) of output")
  }
}
