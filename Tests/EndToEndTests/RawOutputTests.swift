import Foundation
import Testing

/// `--output raw` passes job output through unprefixed, a whole line at a time, so that
/// concurrent jobs and oprun's own lines never tear one another's lines; a line ends at
/// `\n` or `\r`, and a partial line is passed on when its job ends or it reaches 64 KiB
/// (SPEC §2).
@Suite struct RawOutputTests {
  /// Writes `lines` lines of 60,000 bytes (and a progress update ended by `\r` before
  /// each), in pieces of 997 bytes; the first line stops halfway until every one of `jobs`
  /// writers has reached that point, so that all of them have a line open at once.
  static let writer = """
    import os, sys, time
    job, jobs, lines = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fill = bytes([ord("a") + int(job[1:]) % 26])
    def put(data):
        for start in range(0, len(data), 997):
            os.write(1, data[start:start + 997])
    for n in range(lines):
        put(f"{job} progress {n}\\r".encode())
        line = f"{job}-{n}:".encode() + fill * 60000
        if n == 0:
            put(line[:30000])
            open(f"{job}.half", "w").close()
            while sum(name.endswith(".half") for name in os.listdir(".")) < jobs:
                time.sleep(0.01)
            put(line[30000:] + b"\\n")
        else:
            put(line + b"\\n")
    """

  @Test func linesOfTwentyConcurrentJobsWrittenInPiecesArriveWhole() throws {
    let folder = try Scratch()
    let jobs = 20
    let lines = 8
    try folder.write("writer.py", Self.writer)
    let names = (0..<jobs).map { String(format: "j%02d", $0) }
    try folder.manifest(
      "max-concurrent: \(jobs)\njobs:\n"
        + names.map { "  \($0): {command: python3 writer.py \($0) \(jobs) \(lines)}\n" }.joined())
    let oprun = try OprunProcess(runArguments(["--output", "raw"]), in: folder)
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    let output = try Data(contentsOf: URL(fileURLWithPath: oprun.stdoutPath))

    // Every line the writers write, as its text.
    var expected: Set<String> = []
    for (index, name) in names.enumerated() {
      let fill = String(repeating: Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(index % 26))), count: 60000)
      for n in 0..<lines { expected.formUnion(["\(name) progress \(n)", "\(name)-\(n):" + fill]) }
    }
    var seen: [String: Int] = [:]
    var torn: [String] = []
    for segment in output.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
      let text = String(decoding: segment, as: UTF8.self)
      if expected.contains(text) {
        seen[text, default: 0] += 1
      } else if !isOprunsOwnLine(text) {
        torn.append(String(text.prefix(40)) + "… (\(text.utf8.count) bytes)")
      }
    }
    #expect(torn.isEmpty, "\(torn.count) torn lines, such as \(torn.prefix(3))")
    #expect(seen.count == expected.count && seen.values.allSatisfy { $0 == 1 }, "every line once")
  }

  @Test func aProgressBarsUpdatesArePassedOnAsTheyCome() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        bar: {command: "printf '10%%\\\\r'; printf '50%%\\\\r'; while [ ! -f go ]; do sleep 0.01; done; printf '100%%\\\\n'"}
      """)
    let oprun = try OprunProcess(runArguments(["--output", "raw"]), in: folder)
    // A line ended by `\r` is whole: it is not held until a newline comes.
    try waitUntil("the progress so far") { oprun.standardOutput.contains("10%\r50%\r") }
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("10%\r50%\r100%\n"), "\(run.stdout.debugDescription)")
  }

  @Test func anOverlongLineIsPassedOnIn64KiBPiecesWhileItIsOpen() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        long: {command: "python3 -c 'import os; os.write(1, b\\"x\\" * 200000)'; touch wrote; while [ ! -f go ]; do sleep 0.01; done; echo"}
      """)
    let oprun = try OprunProcess(runArguments(["--output", "raw"]), in: folder)
    try folder.waitUntilExists("wrote")
    func passedOn() -> Int {
      oprun.standardOutput.split(separator: "\n").filter { $0.allSatisfy { $0 == "x" } }.map(\.count).reduce(0, +)
    }
    try waitUntil("three pieces") { passedOn() >= 3 * 65536 }
    // The rest of the line waits for its end: less than a piece.
    #expect(passedOn() == 3 * 65536)
    folder.touch("go")
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains(String(repeating: "x", count: 200000) + "\n"))
  }
}
