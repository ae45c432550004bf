import Foundation
import Testing

/// What jobs and completion commands see: variables, folders, niceness (SPEC §2, §3.3).
@Suite struct EnvironmentTests {
  @Test func completionCommandsSeeTheJobItsQueueStatusAndExitCode() throws {
    let folder = try Scratch()
    try folder.write(
      "complete.sh",
      #"printf '%s|%s|%s|%s\n' "$OPRUN_JOB" "$OPRUN_QUEUE" "$OPRUN_JOB_STATUS" "$OPRUN_EXIT_CODE" > "$OPRUN_JOB.completion""#
    )
    let completion = "sh complete.sh"
    try folder.manifest(
      """
      name: main
      max-concurrent: 1
      on-failure: stop
      queues:
        side: {max-concurrent: 1}
      jobs:
        fine: {command: 'true', queue: side, completion: '\(completion)'}
        broken: {command: exit 5, dependencies: [fine], completion: '\(completion)'}
        never: {command: 'true', dependencies: [broken], completion: '\(completion)'}
        killed: {command: kill -TERM $$, completion: '\(completion)'}
      """)
    let run = try runOprun(runArguments(["-k"]), in: folder)
    #expect(run.status == 1)
    #expect(folder.read("fine.completion") == "fine|side|succeeded|0\n")
    #expect(folder.read("broken.completion") == "broken|main|failed|5\n")
    #expect(folder.read("never.completion") == "never|main|skipped|\n")
    // Killed by a signal oprun did not send: failed, `$?`-style 128 + 15.
    #expect(folder.read("killed.completion") == "killed|main|failed|143\n")
    let log = folder.events
    #expect(Set(log.named("completion").compactMap { $0.string("job") }) == ["fine", "broken", "never", "killed"])
    expectStreamContract(log)
  }

  @Test func cancelledJobsCompletionSeesCancelled() throws {
    let folder = try Scratch()
    let completion = #"echo "$OPRUN_JOB_STATUS:$OPRUN_EXIT_CODE" > "$OPRUN_JOB.completion""#
    try folder.manifest(
      """
      max-concurrent: 2
      jobs:
        broken: {command: 'while [ ! -f running.started ]; do sleep 0.01; done; exit 1'}
        running: {command: 'touch running.started; sleep 30', completion: '\(completion)'}
        queued: {command: 'true', completion: '\(completion)'}
      """)
    let run = try runOprun(runArguments(["--fail-fast"]), in: folder)
    #expect(run.status == 1)
    #expect(folder.read("running.completion") == "cancelled:143\n")
    #expect(folder.read("queued.completion") == "cancelled:\n")
    expectStreamContract(folder.events)
  }

  @Test func jobsSeeTheManifestEnvTheirOwnEnvAndTheOprunVariables() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      name: main
      env: {SHARED: from-manifest, OVERRIDDEN: from-manifest}
      queues:
        other: {}
      jobs:
        show:
          command: echo "$SHARED $OVERRIDDEN $OWN $OPRUN_JOB $OPRUN_QUEUE $OPRUN_ATTEMPT $INHERITED" > env.txt
          env: {OVERRIDDEN: from-job, OWN: own}
          queue: other
        stdin:
          command: cat > stdin.txt
      """)
    let run = try runOprun(runArguments(), in: folder, environment: ["INHERITED": "from-oprun", "OWN": "shadowed"])
    #expect(run.status == 0)
    #expect(folder.read("env.txt") == "from-manifest from-job own show other 1 from-oprun\n")
    #expect(folder.read("stdin.txt") == "", "standard input is /dev/null")
  }

  @Test func relativeWorkingDirectoriesAreTakenFromTheManifestsFolder() throws {
    let folder = try Scratch()
    let project = folder.path("project")
    try FileManager.default.createDirectory(atPath: project + "/work/sub", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: folder.path("elsewhere"), withIntermediateDirectories: true)
    try folder.manifest(
      """
      cwd: work
      jobs:
        top: {command: pwd -P > where.txt}
        nested: {command: pwd -P > where.txt, cwd: sub}
        absolute: {command: pwd -P > \(folder.path("elsewhere"))/where.txt, cwd: /}
      """, name: "project/jobs.yaml")
    try folder.manifest("jobs:\n  plain: {command: pwd -P > where.txt}\n", name: "project/plain.yaml")
    // oprun runs from the scratch folder, not from the manifest's.
    #expect(try runOprun(["project/jobs.yaml"], in: folder).status == 0)
    #expect(try runOprun(["project/plain.yaml"], in: folder).status == 0)
    let real = { (path: String) in URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
    #expect(folder.read("project/work/where.txt") == real(project + "/work") + "\n")
    #expect(folder.read("project/work/sub/where.txt") == real(project + "/work/sub") + "\n")
    #expect(folder.read("elsewhere/where.txt") == "/\n")
    #expect(folder.read("project/where.txt") == real(project) + "\n")
  }

  @Test func backgroundAndUtilityQoSRunJobsTenAndFiveStepsNicerThanOprun() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        background: {command: "cut -d' ' -f19 /proc/$$/stat > nice.txt", qos: background}
        utility: {command: "cut -d' ' -f19 /proc/$$/stat > utility.txt", qos: utility}
        plain: {command: "cut -d' ' -f19 /proc/$$/stat > plain.txt"}
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0)
    // oprun inherits the test's niceness.
    let base = ownNiceness()
    #expect(folder.read("nice.txt") == "\(min(base + 10, 19))\n")
    #expect(folder.read("utility.txt") == "\(min(base + 5, 19))\n")
    #expect(folder.read("plain.txt") == "\(base)\n")
  }

  @Test func backgroundQoSNicenessIsClampedAt19() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        background: {command: "cut -d' ' -f19 /proc/$$/stat > nice.txt", qos: background}
      """)
    // oprun itself at niceness 15 (or more): background would be 25, clamped to 19.
    let oprun = try OprunProcess(
      ["nice", "-n", "15", oprunBinary] + runArguments(), in: folder, executable: "/usr/bin/env")
    let run = oprun.wait()
    #expect(run.status == 0)
    #expect(folder.read("nice.txt") == "19\n")
  }

  /// oprun's loop asks for a short scheduler slice (docs/PERFORMANCE.md); its jobs must not
  /// get it, nor lose the niceness they inherit.
  @Test func aJobKeepsTheDefaultSliceAndTheNicenessItInheritsWhateverOprunsLoopAsks() throws {
    let ownSlice = try #require(Self.slice(in: try String(contentsOfFile: "/proc/self/sched", encoding: .utf8)))
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        look: {command: "cat /proc/$$/sched > job.txt; cat /proc/$PPID/sched > oprun.txt; cut -d' ' -f19 /proc/$$/stat > nice.txt"}
      """)
    let oprun = try OprunProcess(
      ["nice", "-n", "5", oprunBinary] + runArguments(), in: folder, executable: "/usr/bin/env")
    #expect(oprun.wait().status == 0)
    #expect(folder.read("nice.txt") == "\(min(ownNiceness() + 5, 19))\n")
    #expect(Self.slice(in: folder.read("job.txt") ?? "") == ownSlice)
    if Self.kernelHonoursCustomSlices {
      #expect(Self.slice(in: folder.read("oprun.txt") ?? "") == 100_000)
    }
  }

  /// The `se.slice` line of a `/proc/PID/sched` file, in nanoseconds.
  static func slice(in schedFile: String) -> Int? {
    schedFile.split(separator: "\n").first { $0.hasPrefix("se.slice") }
      .flatMap { Int($0.split(separator: " ").last ?? "") }
  }

  /// Linux 6.12 and later take a thread's slice from `sched_attr.sched_runtime`.
  static var kernelHonoursCustomSlices: Bool {
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
    return numbers.count == 2 && (numbers[0], numbers[1]) >= (6, 12)
  }
}
