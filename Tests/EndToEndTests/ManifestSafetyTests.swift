import Foundation
import Testing

/// What `oprun check` and a run do with a manifest that is hostile or merely odd.
@Suite struct ManifestSafetyTests {
  @Test func aNameWithControlCharactersIsShownEscapedAndRecordedAsWritten() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  \"x\\ey\": {command: exit 3}\n  \"a\\nb\": {command: 'true'}\n")
    let run = try runOprun(runArguments(["-k"]), in: folder)
    #expect(run.status == 1)
    let shown = run.stdout + run.stderr
    #expect(!shown.contains("\u{1B}y") && !shown.contains("a\nb"), "\(shown)")
    #expect(shown.contains("x\\ey") && shown.contains("a\\nb"))
    let log = folder.events
    #expect(Set(log.finishedCounts.keys) == ["x\u{1B}y", "a\nb"])
    #expect(log.outcome(of: "x\u{1B}y") == "failed")
  }

  @Test func anEnvironmentAliasedIntoGigabytesIsRefusedByCheckAndByARun() throws {
    let folder = try Scratch()
    let big = String(repeating: "x", count: 1 << 20)
    let aliases = (0..<2000).map { "V\($0): *b" }.joined(separator: ", ")
    try folder.manifest("env: {BIG: &b \"\(big)\"}\njobs:\n  j: {command: touch j.ran, env: {\(aliases)}}\n")
    let check = try runOprun(["check", "jobs.yaml"], in: folder)
    #expect(check.status == 2)
    #expect(check.stderr.contains("jobs.yaml:3:"), "at an alias of the job: \(check.stderr.prefix(300))")
    #expect(check.stderr.contains("error: aliases expand the document to more than 16 MiB of text"))
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 2)
    #expect(!folder.exists("j.ran"))
  }

  @Test func checkShowsTheFirstHundredProblemsThenCountsTheRest() throws {
    let folder = try Scratch()
    let jobs = (0..<1000).map { "  j\($0): {command: make, colour: red}" }.joined(separator: "\n")
    try folder.manifest("jobs:\n" + jobs + "\n")
    let check = try runOprun(["check", "jobs.yaml"], in: folder)
    #expect(check.status == 2)
    #expect(check.stderr.split(separator: "\n").filter { $0.contains(": error: ") }.count == 100)
    #expect(check.stderr.hasSuffix("\noprun: and 900 more errors (only the first 100 are shown)\n"))
  }
}
