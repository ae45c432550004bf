import Foundation
import Testing

/// `.oprun/` as SPEC §9 promises it: it belongs to the user who runs oprun and no one else,
/// its journals are ordered by the sequence they carry rather than by the clock, the journal
/// of a run in progress is never pruned under it, and junk in it is not read whole.
@Suite struct StateFolderSafetyTests {
  /// One job whose files decide whether it runs: a run writes a journal, a listing of inputs
  /// and the hash cache.
  static let tracked = """
    jobs:
      build:
        command: cat in.txt > out.txt
        inputs: [in.txt]
        outputs: [out.txt]
    """

  static func trackedFolder() throws -> Scratch {
    let folder = try Scratch()
    try folder.manifest(tracked)
    try folder.write("in.txt", "input\n")
    return folder
  }

  // MARK: No one else's

  @Test func aStateFolderAnotherUserMadeFirstIsRefusedAndNothingIsWrittenThroughItsLinks() throws {
    // A shared folder anyone may add to, as /tmp is; the victim's file is in a folder of its own.
    let shared = try Self.trackedFolder()
    #expect(chmod(shared.url.path, 0o1777) == 0)
    let victim = try Scratch()
    #expect(chmod(victim.url.path, 0o700) == 0)
    let precious = try victim.write("precious", "precious\n")
    try asNobody("mkdir -m 0777 .oprun .oprun/runs .oprun/inputs", in: shared)

    // The link is planted at the name the hash cache's rewrite would have used, from the pid
    // the shell hands to oprun: what an attacker guesses by trying every pid.
    let run = try OprunProcess(
      [
        "-c",
        "setpriv --reuid=65534 --regid=65534 --clear-groups ln -s \"$1\" .oprun/hashes.$$.new && exec \"$0\" jobs.yaml",
        oprunBinary, precious,
      ], in: shared, executable: "/bin/sh"
    ).wait()
    #expect(run.status == 0, "\(run.stderr)")
    #expect(victim.read("precious") == "precious\n", "written through a link another user planted")
    let warnings = run.stderr.split(separator: "\n")
    #expect(warnings.count == 1, "\(run.stderr)")
    #expect(warnings.first?.hasPrefix("oprun: warning: ") == true)
    #expect(warnings.first?.contains("belongs to another user (uid 65534)") == true, "\(run.stderr)")
    #expect(shared.read("out.txt") == "input\n", "the run goes on")
    #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path(".oprun/runs")).isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path(".oprun/inputs")).isEmpty)
  }

  @Test(arguments: ["everyone may write the folder", "a journal of another user is in it", "a link in it"])
  func aStateFolderOthersControlIsRefusedWithOneWarningAndTheRunGoesOnWithoutIt(_ case: String) throws {
    let folder = try Self.trackedFolder()
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    let journals = try FileManager.default.contentsOfDirectory(atPath: folder.path(".oprun/runs"))
    let elsewhere = try Scratch()
    switch `case` {
    case "everyone may write the folder":
      #expect(chmod(folder.path(".oprun"), 0o777) == 0)
    case "a journal of another user is in it":
      #expect(chown(folder.path(".oprun/runs/" + journals[0]), 65534, 65534) == 0)
    default:
      try FileManager.default.moveItem(atPath: folder.path(".oprun/inputs"), toPath: elsewhere.path("inputs"))
      try FileManager.default.createSymbolicLink(
        atPath: folder.path(".oprun/inputs"), withDestinationPath: elsewhere.path("inputs"))
    }

    let again = try runOprun(runArguments(), in: folder)
    #expect(again.status == 0)
    let warnings = again.stderr.split(separator: "\n")
    #expect(warnings.count == 1, "\(again.stderr)")
    let expected = ["may be written by everyone", "belongs to another user", "is a symbolic link"][
      ["everyone may write the folder", "a journal of another user is in it"].firstIndex(of: `case`) ?? 2]
    #expect(warnings.first?.contains(expected) == true, "\(again.stderr)")
    #expect(warnings.first?.contains("as with --no-journal") == true, "\(again.stderr)")
    // No record is trusted: the job runs, and nothing is written there.
    #expect(folder.events.executed("build"))
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path(".oprun/runs"))) == Set(journals))

    let log = try runOprun(["log"], in: folder)
    #expect(log.status == 2)
    #expect(log.stderr.contains("its journals are not read"), "\(log.stderr)")
  }

  @Test func theStateFolderIsMadeWithoutAccessForOthers() throws {
    let folder = try Self.trackedFolder()
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    for name in [".oprun", ".oprun/runs", ".oprun/inputs"] {
      var status = stat()
      #expect(lstat(folder.path(name), &status) == 0)
      #expect(status.st_mode & 0o777 == 0o700, "\(name): \(String(status.st_mode & 0o777, radix: 8))")
    }
  }

  @Test func aManifestNamedThroughALinkKeepsAllItsStateBesideTheLinkAndFindsItsRecords() throws {
    let folder = try Scratch()
    try FileManager.default.createDirectory(atPath: folder.path("shared"), withIntermediateDirectories: true)
    try folder.write("shared/build.yaml", Self.tracked)
    try FileManager.default.createSymbolicLink(
      atPath: folder.path("jobs.yaml"), withDestinationPath: "shared/build.yaml")
    try folder.write("in.txt", "input\n")
    #expect(try runOprun(runArguments(), in: folder).status == 0)

    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(plan.stdout.contains("build  up to date"), "\(plan.stdout)")
    #expect(!folder.exists("shared/.oprun"), "one .oprun/, beside the name the run was given")
    #expect(folder.exists(".oprun/hashes"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path(".oprun/inputs")).count == 1)
  }

  // MARK: Ordered by sequence

  @Test func aNewerRunIsTheNewestEvenWhenTheClockStepsBack() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  flaky:\n    command: test -e pass\n")
    try folder.write("pass", "")
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    let first = try #require(folder.events.named("run-started").first?.string("run"))
    // The first run's header says it started a day later than it did: as if the clock had
    // been set back a day before the second.
    try folder.editHeader(ofRun: first) { $0["start"] = ($0["start"] as? Double ?? 0) + 86_400 }
    try FileManager.default.removeItem(atPath: folder.path("pass"))
    #expect(try runOprun(runArguments(), in: folder).status == 1)
    let second = try #require(folder.events.named("run-started").first?.string("run"))

    let plan = try runOprun(["-n", "-r", "jobs.yaml"], in: folder)
    #expect(plan.status == 0)
    #expect(plan.stdout.contains("against run \(second)"), "\(plan.stdout)")
    #expect(plan.stdout.contains("flaky  runs: failed last time"), "\(plan.stdout)")

    let log = try runOprun(["log", "--json", "jobs.yaml"], in: folder)
    let runs = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
    #expect(runs.compactMap { $0["run"] as? String } == [first, second])
  }

  @Test func twoRunsWithTheSamePidInTheSameSecondKeepTwoJournals() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  one:\n    command: \"true\"\n")
    // Each oprun is pid 1 of a namespace of its own, as in two containers.
    for _ in 1...2 {
      let run = try OprunProcess(
        ["--pid", "--fork", oprunBinary, "jobs.yaml"], in: folder, executable: "/usr/bin/unshare"
      ).wait()
      #expect(run.status == 0)
      #expect(run.stderr.isEmpty, "\(run.stderr)")
    }
    let journals = try FileManager.default.contentsOfDirectory(atPath: folder.path(".oprun/runs"))
    #expect(journals.count == 2, "\(journals)")
    #expect(journals.allSatisfy { $0.contains("-1-") }, "pid 1 in both: \(journals)")
  }

  @Test func aDamagedHeaderDoesNotLetAnOlderRecordStandForANewerOne() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        build:
          command: cat in.txt > out.txt && test ! -e fail
          inputs: [in.txt]
          outputs: [out.txt]
      """)
    try folder.write("in.txt", "input\n")
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    try folder.write("fail", "")
    try folder.write("in.txt", "changed\n")
    #expect(try runOprun(runArguments(), in: folder).status == 1)
    let failed = try #require(folder.events.named("run-started").first?.string("run"))
    // Everything as the first run left it: only the failed run's record says the job must run.
    try FileManager.default.removeItem(atPath: folder.path("fail"))
    try folder.write("in.txt", "input\n")
    try folder.write("out.txt", "input\n")
    // The failed run's header is cut short where it stands; the rest of its journal is whole.
    let journal = folder.path(".oprun/runs/\(failed).ndjson")
    let lines = try String(contentsOfFile: journal, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    try ([String(lines[0].prefix(30))] + lines.dropFirst().map(String.init)).joined(separator: "\n")
      .write(toFile: journal, atomically: true, encoding: .utf8)

    let plan = try runOprun(["-n", "jobs.yaml"], in: folder)
    #expect(plan.status == 0)
    #expect(plan.stdout.contains("build  runs: failed last time"), "\(plan.stdout)")
    #expect(plan.stderr.contains("its header line cannot be read"), "\(plan.stderr)")
  }

  // MARK: Pruning

  @Test func pruningNeverRemovesTheJournalOfARunInProgress() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        long:
          command: while [ ! -e go ]; do sleep 0.05; done
        quick:
          command: "true"
      """)
    let long = try OprunProcess(["jobs.yaml", "long", "--events", "long.ndjson"], in: folder)
    try waitUntil("long executing") { EventLog(path: folder.path("long.ndjson")).executed("long") }
    let run = try #require(EventLog(path: folder.path("long.ndjson")).named("run-started").first?.string("run"))
    for _ in 1...21 { #expect(try runOprun(["jobs.yaml", "quick"], in: folder).status == 0) }
    #expect(folder.exists(".oprun/runs/\(run).ndjson"), "pruned while its run was in progress")

    try folder.write("go", "")
    #expect(long.wait().status == 0)
    let lines = folder.read(".oprun/runs/\(run).ndjson")?.split(separator: "\n") ?? []
    #expect(lines.last?.contains(#""type":"end""#) == true, "the whole journal: \(lines.count) lines")
    // Once it has ended, it is pruned like any other.
    #expect(try runOprun(["jobs.yaml", "quick"], in: folder).status == 0)
    #expect(!folder.exists(".oprun/runs/\(run).ndjson"))
  }

  @Test func anEmptyJournalAndTemporaryFilesLeftLongAgoAreRemoved() throws {
    let folder = try Scratch()
    try folder.manifest("jobs:\n  one:\n    command: \"true\"\n")
    for name in [".oprun/runs", ".oprun/inputs"] {
      try FileManager.default.createDirectory(atPath: folder.path(name), withIntermediateDirectories: true)
    }
    let left = [".oprun/runs/20260101T000000-7-1.ndjson", ".oprun/.hashes.Ab12Cd", ".oprun/inputs/.0123.Ef34Gh"]
    for name in left {
      let file = try folder.write(name, "")
      try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -120)], ofItemAtPath: file)
    }

    let first = try runOprun(runArguments(), in: folder)
    #expect(first.status == 0)
    for name in left { #expect(!folder.exists(name), "\(name)") }
    let second = try runOprun(runArguments(), in: folder)
    #expect(second.status == 0)
    #expect(second.stderr.isEmpty, "\(second.stderr)")
  }

  // MARK: Junk

  @Test func aHashCacheOfJunkIsNotReadWhole() throws {
    let folder = try Self.trackedFolder()
    try FileManager.default.createDirectory(atPath: folder.path(".oprun"), withIntermediateDirectories: true)
    // 900 MB of nothing, which costs no disk: a file system full of holes.
    let junk = open(folder.path(".oprun/hashes"), O_WRONLY | O_CREAT, 0o600)
    #expect(ftruncate(junk, 900 << 20) == 0)
    close(junk)

    let sink = try #require(FileHandle(forWritingAtPath: "/dev/null"))
    let run = try OprunProcess(
      ["-f", "%M", "-o", folder.path("peak"), oprunBinary, "jobs.yaml", "-q"], in: folder,
      executable: "/usr/bin/time", standardOutput: sink
    ).wait()
    #expect(run.status == 0, "\(run.stderr)")
    let peakKilobytes = try #require(Int(folder.read("peak")?.split(separator: "\n").last ?? ""))
    // A run of one job holds a few tens of MB; the junk alone would be 900.
    #expect(peakKilobytes < 300 << 10, "peak \(peakKilobytes) kB")
    #expect(folder.read("out.txt") == "input\n")
  }
}

/// Runs `script` with `/bin/sh` in `folder` as user and group 65534, with no other group.
private func asNobody(_ script: String, in folder: Scratch) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
  process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", script]
  process.currentDirectoryURL = folder.url
  try process.run()
  process.waitUntilExit()
  #expect(process.terminationStatus == 0, "as nobody: \(script)")
}

extension Scratch {
  /// Rewrites the header line of run `id`'s journal with `edit`.
  fileprivate func editHeader(ofRun id: String, _ edit: (inout [String: Any]) -> Void) throws {
    let file = path(".oprun/runs/\(id).ndjson")
    var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
    var header = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    edit(&header)
    lines[0] = String(decoding: try JSONSerialization.data(withJSONObject: header), as: UTF8.self)
    try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
  }
}
