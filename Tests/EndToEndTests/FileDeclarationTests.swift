import Foundation
import Testing

/// What `inputs` and `outputs` declare, as `oprun check` and a run take it (SPEC §10): an
/// output two jobs write and a pattern inside `.oprun/` are refused before anything runs;
/// `inputs: []` says the job reads no file.
@Suite struct FileDeclarationTests {
  @Test func twoJobsThatWriteOneFileAreRefusedBeforeAnythingRuns() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        a: {command: echo a > out.txt, outputs: [out.txt]}
        b: {command: echo b > out.txt, outputs: [./out.txt]}
      """)
    let check = try runOprun(["check", "jobs.yaml"], in: folder)
    #expect(check.status == 2)
    #expect(
      check.stderr.hasPrefix(
        "jobs.yaml:3:44: error: output './out.txt' of job 'b' is also an output of job 'a' (as 'out.txt')\n"),
      "\(check.stderr)")
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 2)
    #expect(!folder.exists("out.txt"))
  }

  @Test func anOutputInsideTheStateFolderIsRefusedByCheck() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  a: {command: touch .oprun/mark, outputs: [.oprun/mark]}\n")
    let check = try runOprun(["check", "jobs.yaml"], in: folder)
    #expect(check.status == 2)
    #expect(
      check.stderr.hasPrefix(
        "jobs.yaml:2:45: error: output '.oprun/mark' of job 'a' lies inside '.oprun/', which oprun keeps for its records; it would never be found\n"
      ), "\(check.stderr)")
  }

  @Test func aJobWithAnEmptyInputListRunsOnceThenIsUpToDateUntilItsCommandChanges() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  setup: {command: echo ran >> setup.log, inputs: []}\n")
    let first = try runOprun(runArguments(), in: folder)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(folder.events.executedJobs == ["setup"])
    let second = try runOprun(runArguments(), in: folder)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(folder.events.executedJobs.isEmpty)
    #expect(folder.events.finish(of: "setup")?["up_to_date"] as? Bool == true)
    #expect(folder.read("setup.log") == "ran\n")
    try folder.manifest("jobs:\n  setup: {command: echo again >> setup.log, inputs: []}\n")
    let edited = try runOprun(runArguments(), in: folder)
    #expect(edited.status == 0, "\(edited.stderr)")
    #expect(folder.events.executedJobs == ["setup"])
    #expect(folder.read("setup.log") == "ran\nagain\n")
  }

  @Test func checkWarnsOfAnInputPatternThatMatchesNoFileAndSaysHowToNameABracket() throws {
    let folder = try Scratch()
    try folder.write("data[1].csv", "1\n")
    try folder.manifest("jobs:\n  load:\n    command: cat 'data[1].csv'\n    inputs: [\"data[1].csv\"]\n")
    let check = try runOprun(["check", "jobs.yaml"], in: folder)
    #expect(check.status == 0)
    #expect(
      check.stderr
        == "oprun: warning: jobs.yaml:4:14: input 'data[1].csv' of job 'load' matches no file; '[...]' matches "
        + "one character of a set: write 'data\\[1\\].csv' for a name with brackets\n")
    try folder.manifest("jobs:\n  load:\n    command: cat 'data[1].csv'\n    inputs: ['data\\[1\\].csv']\n")
    let fixed = try runOprun(["check", "jobs.yaml"], in: folder)
    #expect(fixed.status == 0)
    #expect(fixed.stderr == "")
  }
}
