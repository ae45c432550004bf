import OprunCore
import PropertyBased
import Testing

/// SPEC §9: a journal is read line by line and never trusted: a line that cannot be read is
/// skipped and counted, and the rest still counts.
@Suite struct JournalReadingTests {
  static let header =
    #"{"type":"header","format":1,"run":"20260101-120000-ab12","manifest":"/work/jobs.yaml","start":1767268800.125,"oprun":""#
    + oprunVersion + #"","args":["jobs.yaml","--resume"],"targets":[]}"#
  static let end =
    #"{"type":"end","exit_code":1,"counts":{"succeeded":1,"failed":1,"cancelled":0,"skipped":0,"timed-out":0},"duration":3.5}"#

  static func job(
    _ name: String, outcome: String = "succeeded", fingerprint: String = "00000000000000aa", extra: String = ""
  ) -> String {
    #"{"type":"job","job":"\#(name)","outcome":"\#(outcome)","exit_code":0,"signal":null,"start":1767268800.5,"duration":1.25,"attempt":1,"fingerprint":"\#(fingerprint)""#
      + extra + "}"
  }

  private func read(_ lines: [String], trailingNewline: Bool = true, keepingLines: Bool = false) -> Journal {
    let text = lines.joined(separator: "\n") + (trailingNewline && !lines.isEmpty ? "\n" : "")
    return Journal.read(Array(text.utf8), keepingLines: keepingLines)
  }

  private func problemLines(_ journal: Journal) -> [Int] { journal.problems.map(\.line) }

  @Test func aFailuresRecordKeepsItsLastLinesAndAnOlderRecordHasNone() throws {
    let journal = read([
      Self.header,
      Self.job(
        "test", outcome: "failed", extra: #","output":["check 2 ok","assertion failed: <3> \u00e9"],"output_lines":40"#),
      Self.job("old", outcome: "failed"),
    ])
    #expect(journal.problems.isEmpty)
    #expect(journal.records[0].output == ["check 2 ok", "assertion failed: <3> é"])
    #expect(journal.records[0].outputLines == 40)
    #expect(journal.records[1].output.isEmpty)
    #expect(journal.records[1].outputLines == 0)
  }

  @Test func aWellFormedJournalIsReadWhole() throws {
    let parts =
      #","parts":{"command":"0000000000000001","env":"0000000000000002","cwd":"0000000000000003","timeout":"0000000000000004","dependencies":"0000000000000005"}"#
    let journal = read([
      Self.header,
      Self.job("fetch", fingerprint: "0123456789abcdef", extra: parts),
      Self.job("build", outcome: "failed", fingerprint: "fedcba9876543210", extra: #","resumed":true"#),
      Self.end,
    ])
    #expect(journal.problems.isEmpty)
    #expect(!journal.isFromNewerFormat)
    #expect(!journal.isFromNewerOprun)
    let header = try #require(journal.header)
    #expect(
      header
        == JournalHeader(
          run: "20260101-120000-ab12", manifest: "/work/jobs.yaml", start: 1_767_268_800.125, oprun: oprunVersion,
          args: ["jobs.yaml", "--resume"], targets: [], format: 1))
    #expect(journal.records.map(\.job) == ["fetch", "build"])
    #expect(
      journal.records[0]
        == JournalRecord(
          job: "fetch", outcome: .succeeded, exitCode: 0, signal: nil, start: 1_767_268_800.5, duration: 1.25,
          fingerprint: 0x0123_4567_89ab_cdef,
          parts: [.command: 1, .env: 2, .cwd: 3, .timeout: 4, .dependencies: 5], resumed: false))
    #expect(journal.records[1].outcome == .failed)
    #expect(journal.records[1].fingerprint == 0xfedc_ba98_7654_3210)
    #expect(journal.records[1].parts.isEmpty)
    #expect(journal.records[1].resumed)
    #expect(
      journal.end
        == JournalEnd(
          exitCode: 1, counts: [.succeeded: 1, .failed: 1, .cancelled: 0, .skipped: 0, .timedOut: 0], duration: 3.5))
    #expect(Set(journal.recordsByJob.keys) == ["fetch", "build"])
    #expect(journal.lines.isEmpty, "lines are kept only when asked for")
  }

  @Test func keptLinesAreTheLinesReadInOrder() {
    let journal = read([Self.header, Self.job("a"), "garbage", Self.end], keepingLines: true)
    #expect(journal.lines.map(\.kind) == [.header, .job, .end])
    #expect(journal.lines[1].value["job"]?.stringValue == "a")
  }

  @Test func everyOutcomeIsReadByItsWord() {
    let outcomes = Outcome.allCases
    let journal = read(outcomes.map { Self.job("job-\($0.rawValue)", outcome: $0.rawValue) })
    #expect(journal.problems.isEmpty)
    #expect(journal.records.map(\.outcome) == outcomes)
  }

  @Test func aTruncatedLastLineIsOneProblemAndTheRestCounts() {
    let cut = String(Self.job("test").dropLast(9))
    let journal = read([Self.header, Self.job("fetch"), Self.job("build"), cut], trailingNewline: false)
    #expect(problemLines(journal) == [4])
    #expect(journal.problems.first?.message == "the line is incomplete")
    #expect(journal.records.map(\.job) == ["fetch", "build"])
    #expect(journal.header != nil)
  }

  @Test func aWholeLastLineWithoutItsNewlineCounts() {
    let journal = read([Self.header, Self.job("fetch"), Self.job("build")], trailingNewline: false)
    #expect(journal.problems.isEmpty)
    #expect(journal.records.map(\.job) == ["fetch", "build"])
  }

  @Test func aCutLineBeforeTheLastIsNotJSONRatherThanIncomplete() {
    let cut = String(Self.job("test").dropLast(9))
    let journal = read([Self.header, cut, Self.job("build")])
    #expect(problemLines(journal) == [2])
    #expect(journal.problems.first?.message.hasPrefix("not JSON") == true)
  }

  @Test func binaryJunkLinesAreProblemsAndTheRestCounts() {
    var bytes = Array((Self.header + "\n").utf8)
    bytes += [0x00, 0xff, 0xfe, 0x80, 0x7b, 0x22, 0xc3, 0x28, 0x0a]
    bytes += Array((Self.job("fetch") + "\n").utf8)
    bytes += [0x1b, 0x5b, 0x32, 0x4a, 0x00, 0x00, 0x0a]
    bytes += Array("{\"type\":\"job\",\"job\":\"\u{FFFD}\"\n".utf8)
    bytes += Array((Self.job("build") + "\n").utf8)
    let journal = Journal.read(bytes)
    #expect(problemLines(journal) == [2, 4, 5])
    #expect(journal.records.map(\.job) == ["fetch", "build"])
  }

  @Test func invalidUTF8InsideAStringIsAProblem() {
    var bytes = Array(#"{"type":"job","job":""#.utf8)
    bytes += [0xc3, 0x28]
    bytes += Array(#"","outcome":"succeeded","fingerprint":"00000000000000aa"}"#.utf8) + [0x0a]
    let journal = Journal.read(bytes)
    #expect(problemLines(journal) == [1])
    #expect(journal.records.isEmpty)
  }

  @Test func aLineOfUnknownTypeIsAProblem() {
    let journal = read([
      Self.header, #"{"type":"checkpoint","job":"a"}"#, #"{"job":"a","outcome":"succeeded"}"#, #"{"type":7}"#,
      Self.job("a"),
    ])
    #expect(problemLines(journal) == [2, 3, 4])
    #expect(journal.problems[0].message.contains("checkpoint"))
    #expect(journal.records.map(\.job) == ["a"])
  }

  @Test func jsonThatIsNotAnObjectIsAProblem() {
    let journal = read(["[1,2,3]", "\"header\"", "42", "null", "true", Self.job("a")])
    #expect(problemLines(journal) == [1, 2, 3, 4, 5])
    #expect(journal.records.map(\.job) == ["a"])
  }

  @Test func aHeaderFromANewerFormatTakesNoRecords() {
    let newer = Self.header.replacingOccurrences(of: #""format":1"#, with: #""format":99"#)
    #expect(newer != Self.header)
    let journal = read([newer, Self.job("fetch"), Self.job("build", extra: #","novelty":{"x":1}"#), Self.end])
    #expect(journal.isFromNewerFormat)
    #expect(journal.header?.format == 99)
    #expect(journal.records.isEmpty)
    #expect(journal.recordsByJob.isEmpty)
    #expect(journal.problems.isEmpty)
  }

  @Test(
    arguments: [
      ("99.0.0", true), ("0.99", true), ("\(oprunVersion).1", true), (oprunVersion, false), ("0.0.1", false),
      ("", false), ("unknown", false),
    ] as [(String, Bool)])
  func aHeaderFromANewerOprunIsSaidAndItsRecordsStillCount(version: String, isNewer: Bool) {
    let header = Self.header.replacingOccurrences(of: #""oprun":"\#(oprunVersion)""#, with: #""oprun":"\#(version)""#)
    let journal = read([header, Self.job("fetch"), Self.end])
    #expect(journal.header?.oprun == version)
    #expect(journal.isFromNewerOprun == isNewer)
    #expect(!journal.isFromNewerFormat)
    #expect(journal.records.map(\.job) == ["fetch"])
    #expect(journal.problems.isEmpty)
  }

  @Test func aHeaderWithoutAFormatIsTheFirstFormat() {
    let unversioned = Self.header.replacingOccurrences(of: #""format":1,"#, with: "")
    let journal = read([unversioned, Self.job("fetch")])
    #expect(journal.header?.format == 1)
    #expect(!journal.isFromNewerFormat)
    #expect(journal.records.count == 1)
  }

  @Test func aSecondHeaderIsAProblemAndTheFirstCounts() {
    let other = Self.header.replacingOccurrences(of: "20260101-120000-ab12", with: "other")
    let journal = read([Self.header, other, Self.job("a")])
    #expect(problemLines(journal) == [2])
    #expect(journal.header?.run == "20260101-120000-ab12")
  }

  @Test func aHeaderWithoutItsRunManifestOrStartIsAProblem() {
    let journal = read([
      #"{"type":"header","manifest":"/m.yaml","start":1}"#, #"{"type":"header","run":"r","start":1}"#,
      #"{"type":"header","run":"r","manifest":"/m.yaml","start":"soon"}"#, Self.job("a"),
    ])
    #expect(problemLines(journal) == [1, 2, 3])
    #expect(journal.header == nil)
    #expect(journal.records.map(\.job) == ["a"])
  }

  @Test func aJobLineWithoutItsFingerprintIsAProblem() {
    let without = Self.job("build").replacingOccurrences(of: #","fingerprint":"00000000000000aa""#, with: "")
    #expect(without != Self.job("build"))
    let journal = read([Self.header, Self.job("fetch"), without, Self.end])
    #expect(problemLines(journal) == [3])
    #expect(journal.records.map(\.job) == ["fetch"])
    #expect(journal.recordsByJob["build"] == nil)
    #expect(journal.end != nil)
  }

  @Test(arguments: [
    #","fingerprint":"xyz""#, #","fingerprint":"00000000000000a""#, #","fingerprint":170"#,
    #","fingerprint":null"#,
  ])
  func aJobLineWithAnUnreadableFingerprintIsAProblem(fingerprint: String) {
    let line = Self.job("build").replacingOccurrences(of: #","fingerprint":"00000000000000aa""#, with: fingerprint)
    let journal = read([line])
    #expect(problemLines(journal) == [1])
    #expect(journal.records.isEmpty)
  }

  @Test func aJobLineWithoutItsNameOrWithAnUnknownOutcomeIsAProblem() {
    let journal = read([
      Self.job("a").replacingOccurrences(of: #""job":"a","#, with: ""),
      Self.job("b", outcome: "exploded"),
      Self.job("c", outcome: "Succeeded"),
      Self.job("d"),
    ])
    #expect(problemLines(journal) == [1, 2, 3])
    #expect(journal.records.map(\.job) == ["d"])
  }

  @Test func unreadablePartsAreLeftOutAndTheRecordKept() {
    let parts = #","parts":{"command":"0000000000000001","env":"junk","bogus":"0000000000000002","cwd":3}"#
    let journal = read([Self.job("a", extra: parts)])
    #expect(journal.problems.isEmpty)
    #expect(journal.records.first?.parts == [.command: 1])
  }

  /// SPEC §10: a record lists its outputs in its line, as every record before listings were
  /// kept did, or names the listing that holds them by its digest.
  @Test func aRecordsOutputsAreListedInItsLineOrNamedByTheirListingsDigest() throws {
    let digest = String(repeating: "c", count: 64)
    let files = #","inputs":"\#(String(repeating: "a", count: 64))","result":"r","dependency_results":{}"#
    let listed = #","outputs":[{"path":"app","kind":"file","sha256":"\#(digest)"}]"#
    let journal = read([
      Self.header,
      Self.job("listed", extra: files + listed),
      Self.job("kept", extra: files + #","outputs_listing":"\#(digest)""#),
      Self.job("none", extra: files),
    ])
    #expect(journal.problems.isEmpty)
    let records = journal.recordsByJob
    #expect(records["listed"]?.files?.outputs == .listed([FileRecord(path: "app", kind: .file, digest: digest)]))
    #expect(records["kept"]?.files?.outputs == .kept(digest: digest))
    #expect(records["none"]?.files?.outputs == .listed([]))
  }

  @Test func aJobWrittenTwiceKeepsItsLastRecord() {
    let journal = read([
      Self.header,
      Self.job("build", outcome: "failed", fingerprint: "0000000000000001"),
      Self.job("fetch"),
      Self.job("build", outcome: "succeeded", fingerprint: "0000000000000002"),
    ])
    #expect(journal.records.count == 3)
    #expect(journal.recordsByJob.count == 2)
    #expect(journal.recordsByJob["build"]?.outcome == .succeeded)
    #expect(journal.recordsByJob["build"]?.fingerprint == 2)
  }

  @Test func emptyInputIsAnEmptyJournal() {
    for bytes in [[], Array("\n".utf8), Array("\n\n  \r\n".utf8)] as [[UInt8]] {
      let journal = Journal.read(bytes)
      #expect(journal.header == nil)
      #expect(journal.records.isEmpty)
      #expect(journal.end == nil)
      #expect(journal.problems.isEmpty)
      #expect(!journal.isFromNewerFormat)
    }
  }

  @Test func blankLinesAndCarriageReturnsBetweenLinesAreNotProblems() {
    let text = Self.header + "\r\n\n   \n" + Self.job("a") + "\r\n" + Self.end + "\n"
    let journal = Journal.read(Array(text.utf8))
    #expect(journal.problems.isEmpty)
    #expect(journal.header != nil)
    #expect(journal.records.map(\.job) == ["a"])
    #expect(journal.end != nil)
  }

  @Test func aLineOfMoreThan64MebibytesIsRefusedAndTheRestCounts() {
    let long = Self.job("huge", extra: #","padding":""# + String(repeating: "x", count: 64 << 20) + "\"")
    let journal = read([Self.header, long, Self.job("after")])
    #expect(problemLines(journal) == [2])
    #expect(journal.problemCount == 1)
    #expect(journal.records.map(\.job) == ["after"])
  }

  @Test func aMebibyteOfOpeningBracketsIsOneProblem() {
    let bytes = [UInt8](repeating: UInt8(ascii: "["), count: (1 << 20) + 10) + [UInt8(ascii: "\n")]
    let journal = Journal.read(bytes + Array((Self.job("after") + "\n").utf8))
    #expect(problemLines(journal) == [1])
    #expect(journal.records.map(\.job) == ["after"])
  }

  @Test func deepNestingIsAProblemNotACrash() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let nested = Self.job(
      "nested",
      extra: #","x":"# + String(repeating: #"{"a":"#, count: 20) + "1"
        + String(repeating: "}", count: 20))
    let journal = read([deep, nested, Self.job("a")])
    #expect(problemLines(journal) == [1, 2])
    #expect(journal.records.map(\.job) == ["a"])
  }

  // MARK: - Robustness

  /// A line the fuzzer writes: one of the journal's own lines, a mangled one, or raw bytes.
  private static func line(kind: Int, bytes: [UInt8]) -> [UInt8] {
    let templates = [Self.header, Self.job("a"), Self.job("b", outcome: "failed"), Self.end]
    switch kind {
    case 0...3:
      return Array(templates[kind].utf8)
    case 4...6:
      // A template with bytes overwritten at positions picked from the random bytes.
      var line = Array(templates[kind - 3].utf8)
      for (position, byte) in zip(bytes, bytes.dropFirst()) { line[Int(position) % line.count] = byte }
      return line
    case 7:
      // A template cut at a point picked from the random bytes.
      let line = Array(templates[(bytes.first.map(Int.init) ?? 0) % templates.count].utf8)
      return Array(line.prefix(bytes.count * 7 % line.count))
    default:
      return bytes
    }
  }

  private static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
    line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }
  }

  @Test func randomLinesNeverCrashAndEachIsTakenOrAProblem() async {
    let lines = zip(Gen.int(in: 0...9), Gen.uint8().array(of: 0...60)).array(of: 0...24)
    await propertyCheck(count: 500, input: lines, Gen.bool) { lines, trailingNewline in
      var bytes: [UInt8] = []
      for (index, (kind, random)) in lines.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: "\n")) }
        bytes += Self.line(kind: kind, bytes: random)
      }
      if trailingNewline && !lines.isEmpty { bytes.append(UInt8(ascii: "\n")) }
      let journal = Journal.read(bytes, keepingLines: true)

      // The lines as the journal sees them: split at every newline, the last one
      // incomplete unless the input ends with a newline.
      let split = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      let written = bytes.last == UInt8(ascii: "\n") ? split.dropLast() : split[...]
      let nonBlank = Set(written.indices.filter { !Self.isBlank(written[$0]) }.map { $0 + 1 })
      let problems = journal.problems.map(\.line)
      #expect(Set(problems).count == problems.count, "one problem per line at most")
      #expect(Set(problems).isSubset(of: nonBlank), "no problem for a blank line")
      if !journal.isFromNewerFormat {
        #expect(journal.lines.count + problems.count == nonBlank.count, "each line taken or a problem")
      }
      #expect(journal.records.count == journal.lines.count { $0.kind == .job })
      for problem in journal.problems where problem.message == "the line is incomplete" {
        #expect(problem.line == written.count && bytes.last != UInt8(ascii: "\n"), "only a cut last line is incomplete")
      }
    }
  }

  @Test func randomBytesNeverCrash() async {
    let alphabet = Array(#"{}[]":,\ntruefalsnl0123456789.-+eE"#.utf8) + [0x00, 0xc3, 0xff, 0x0d]
    let byte = zip(Gen.bool, Gen.uint8()).map { raw, byte in raw ? byte : alphabet[Int(byte) % alphabet.count] }
    let bytes = byte.array(of: 0...400)
    await propertyCheck(count: 500, input: bytes) { bytes in
      let journal = Journal.read(bytes, keepingLines: true)
      let lineCount = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
      #expect(journal.problems.allSatisfy { $0.line >= 1 && $0.line <= lineCount })
      #expect(journal.lines.count + journal.problems.count <= lineCount)
    }
  }

  @Test func aMillionJunkLinesAreCountedButOnlyTheFirstThousandKept() {
    let junk = String(repeating: "x\n", count: 1_000_000)
    let journal = Journal.read(Array((Self.header + "\n" + junk + Self.job("a") + "\n").utf8))
    #expect(journal.problemCount == 1_000_000)
    #expect(journal.problems.count == Journal.keptProblems)
    #expect(journal.records.map(\.job) == ["a"])
  }
}
