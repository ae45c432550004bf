import Foundation
import Testing

/// `dotenv` files and `secrets` (SPEC §15): what jobs see, and what oprun never shows.
@Suite struct DotenvSecretsTests {
  private static let printSettings = #"printf '%s|%s|%s|%s|%s\n' "$A" "$B" "$C" "$D" "$E" > "$OPRUN_JOB.env""#
  private static let command = "sh print.sh"

  @Test func dotenvFilesAreReadInOrderThenTheManifestsEnvThenTheJobs() throws {
    let folder = try Scratch()
    try folder.write(
      ".env",
      """
      # shared settings
      export A=from-env
      B='single # kept'
      C="two\\nlines"   # a comment
      D=from-env
      E=from-env
      """)
    try folder.write(".env.local", "A=from-local\nexport D = from-local\n")
    try folder.write("job.env", "E=from-job-file\n")
    try folder.write("print.sh", Self.printSettings)
    try folder.manifest(
      """
      dotenv: [.env, .env.local]
      env: {D: from-manifest-env}
      jobs:
        plain: {command: '\(Self.command)'}
        own: {command: '\(Self.command)', dotenv: [job.env], env: {A: from-job-env}}
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.read("plain.env") == "from-local|single # kept|two\nlines|from-manifest-env|from-env\n")
    #expect(folder.read("own.env") == "from-job-env|single # kept|two\nlines|from-manifest-env|from-job-file\n")
  }

  @Test func aMissingOptionalFileIsSkippedSilentlyAndAMissingRequiredOneIsAnError() throws {
    let folder = try Scratch()
    try folder.manifest("dotenv: [.env.local]\njobs:\n  j: {command: 'touch ran'}\n")
    let optional = try runOprun(runArguments(), in: folder)
    #expect(optional.status == 0)
    #expect(optional.stderr.isEmpty, "\(optional.stderr)")
    #expect(folder.exists("ran"))

    let other = try Scratch()
    try other.manifest("dotenv: [.env.local, secrets.env!]\njobs:\n  j: {command: 'touch ran'}\n")
    let required = try runOprun(runArguments(), in: other)
    #expect(required.status == 2)
    #expect(required.stderr.contains("jobs.yaml:1:22: error: required dotenv file 'secrets.env' does not exist"))
    #expect(!other.exists("ran"))
  }

  @Test func aMalformedLineIsReportedAtItsFileAndLineAndNothingRuns() throws {
    let folder = try Scratch()
    try folder.write(".env", "GOOD=1\nnot a line\nALSO='unclosed\n")
    try folder.manifest("dotenv: [.env]\njobs:\n  j: {command: 'touch ran'}\n")
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 2)
    #expect(run.stderr.contains(".env:2:5: error: expected '=' after 'not'"), "\(run.stderr)")
    #expect(run.stderr.contains(".env:3:6: error: unclosed single quote"), "\(run.stderr)")
    #expect(!folder.exists("ran"))
  }

  @Test func aChangedDotenvFileRunsItsJobsAgain() throws {
    let folder = try Scratch()
    try folder.write(".env", "MODE=debug\n")
    try folder.manifest(
      """
      jobs:
        uses: {command: 'echo $MODE >> uses.log', dotenv: [.env]}
        other: {command: 'echo run >> other.log'}
      """)
    #expect(try runOprun(runArguments(), in: folder).status == 0)
    #expect(try runOprun(runArguments(["--resume"]), in: folder).status == 0)
    #expect(folder.read("uses.log") == "debug\n")
    try folder.write(".env", "MODE=release\n")
    #expect(try runOprun(runArguments(["--resume"]), in: folder).status == 0)
    #expect(folder.read("uses.log") == "debug\nrelease\n")
    #expect(folder.read("other.log") == "run\n")
  }

  @Test func watchRunsAgainTheJobsOfADotenvFileThatChanged() throws {
    let folder = try Scratch()
    try folder.write("job.env", "MODE=debug\n")
    try folder.manifest(
      """
      dotenv: [shared.env]
      jobs:
        uses: {command: 'echo "uses $MODE" >> log', dotenv: [job.env]}
        other: {command: 'echo "other $SHARED" >> log'}
      """)
    let oprun = try OprunProcess(["--watch", "--events", eventsFile, "jobs.yaml"], in: folder)
    func watching(_ count: Int) throws {
      try waitUntil("oprun watching for the \(count). time") {
        let err = (try? String(contentsOfFile: oprun.stderrPath, encoding: .utf8)) ?? ""
        return err.split(separator: "\n").filter { $0.hasPrefix("oprun: watching ") }.count >= count
      }
    }
    func ran() -> Set<String> { Set((folder.read("log") ?? "").split(separator: "\n").map(String.init)) }
    try watching(1)
    #expect(ran() == ["uses debug", "other "])
    try folder.write("job.env", "MODE=release\n")
    try watching(2)
    #expect(ran() == ["uses debug", "other ", "uses release"], "only the job that reads the file runs again")
    try folder.write("shared.env", "SHARED=yes\n")  // created after the start: every job reads it
    try watching(3)
    #expect(ran() == ["uses debug", "other ", "uses release", "other yes"])
    oprun.send(SIGINT)
    #expect(oprun.wait().signal == SIGINT)
  }

  /// A job that prints its token whole, then one byte per write, then fails: the token is
  /// `***` on its line, in the events, in everything under `.oprun/` (the journal keeps a
  /// failure's last lines), in the trace and in the HTML report.
  @Test(arguments: ["prefixed", "grouped", "raw"])
  func aSecretIsMaskedWhereverOprunWritesAJobsOutput(mode: String) throws {
    let folder = try Scratch()
    let token = "tok-0123456789"
    let fromFile = "deploy-key-abcdef"
    try folder.write(".env", "DEPLOY_KEY=\(fromFile)\n")
    let oneByteAtATime = token.map { "printf %s \($0); sleep 0.01" }.joined(separator: "; ")
    try folder.manifest(
      """
      dotenv: [.env]
      secrets: [API_TOKEN, DEPLOY_KEY, NOT_SET]
      jobs:
        leak:
          command: 'echo "whole: $API_TOKEN and $DEPLOY_KEY"; printf "split: "; \(oneByteAtATime); echo; exit 1'
      """)
    let run = try runOprun(
      runArguments(["--output", mode, "--trace", "trace.json"]), in: folder, environment: ["API_TOKEN": token])
    #expect(run.status == 1)
    #expect(run.stdout.contains("whole: *** and ***"), "\(run.stdout)")
    #expect(run.stdout.contains("split: ***"), "\(run.stdout)")
    let texts = folder.events.named("output").compactMap { $0.string("text") }
    #expect(texts == ["whole: *** and ***\n", "split: ***\n"])

    let report = try runOprun(["report", eventsFile, "--html", "report.html"], in: folder)
    #expect(report.status == 0, "\(report.stderr)")
    var written = ["stdout": run.stdout, "stderr": run.stderr]
    for name in [eventsFile, "trace.json", "report.html"] { written[name] = folder.read(name) ?? "" }
    let state = try #require(FileManager.default.enumerator(atPath: folder.path(".oprun")))
    for case let name as String in state {
      written[".oprun/" + name] = (try? String(contentsOfFile: folder.path(".oprun/" + name), encoding: .utf8)) ?? ""
    }
    #expect(written.keys.contains { $0.hasPrefix(".oprun/runs/") })
    #expect(written.values.contains { $0.contains("split: ***") }, "the journal keeps the failure's lines")
    for (name, text) in written {
      #expect(!text.contains(token) && !text.contains(fromFile), "\(name) shows a secret")
    }
  }

  @Test func valuesShorterThanFourBytesAreNotMasked() throws {
    let folder = try Scratch()
    try folder.manifest("secrets: [SHORT]\njobs:\n  j: {command: 'echo \"[$SHORT]\"'}\n")
    let run = try runOprun(runArguments(), in: folder, environment: ["SHORT": "abc"])
    #expect(run.status == 0)
    #expect(folder.events.named("output").compactMap { $0.string("text") } == ["[abc]\n"])
  }
}
