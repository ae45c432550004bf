import OprunCore
import Testing

/// What the kernel would refuse to exec, and what would make the loader build more text
/// than a manifest holds, is refused when the manifest is loaded, at the place that causes it.
@Suite struct ManifestLimitsTests {
  /// The problems of `text`, as `FILE:LINE:COLUMN: error: MESSAGE`; empty if it is accepted.
  private func problems(_ text: String) -> [String] {
    let source = SourceText(path: "l.yaml", text: text)
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else { return [] }
    return errors.diagnostics.map(\.description)
  }

  private func kibibytes(_ count: Int, of character: Character = "x") -> String {
    String(repeating: character, count: count * 1024)
  }

  @Test func aMebibyteAnchoredOnceAndAliasedTwoThousandTimesIsRefusedAtAnAlias() {
    let aliases = (0..<2000).map { "V\($0): *b" }.joined(separator: ", ")
    let text = "env: {BIG: &b \"\(kibibytes(1024))\"}\njobs:\n  j: {command: env, env: {\(aliases)}}\n"
    let found = problems(text)
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("l.yaml:3:") == true, "at an alias on the job's line: \(found)")
    #expect(found.first?.hasSuffix("error: aliases expand the document to more than 16 MiB of text") == true)
  }

  @Test func aliasesMayRepeatTextUpToTenTimesTheFilesSize() {
    // A 2 MiB file whose one 100 KiB value is aliased 200 times (20 MiB) reads; 400 times
    // (40 MiB, over 16 MiB and over ten times the file) does not.
    let padding = "# " + kibibytes(2048, of: "p") + "\n"
    func manifest(aliases: Int) -> String {
      let jobs = (0..<aliases).map { "  j\($0): {command: *c}" }.joined(separator: "\n")
      return padding + "jobs:\n  first: {command: &c \"echo \(kibibytes(100))\"}\n" + jobs + "\n"
    }
    #expect(problems(manifest(aliases: 200)) == [])
    let refused = problems(manifest(aliases: 400))
    let allowance = (10 * manifest(aliases: 400).utf8.count) >> 20
    #expect(refused.count == 1 && refused[0].hasSuffix("more than \(allowance) MiB of text"), "\(refused)")
  }

  @Test func aCommandIsAtMostOneArgumentOfTheKernel() {
    let longest = String(repeating: "x", count: 131_071)
    #expect(problems("jobs:\n  j:\n    command: \(longest)\n") == [])
    #expect(
      problems("jobs:\n  j:\n    commands: [make, \(longest)y]\n    completion: \(longest)z\n") == [
        "l.yaml:3:22: error: the command is 131072 bytes; the kernel takes at most 131071 bytes (128 KiB with the closing NUL) in one argument or environment string",
        "l.yaml:4:17: error: the command is 131072 bytes; the kernel takes at most 131071 bytes (128 KiB with the closing NUL) in one argument or environment string",
      ])
  }

  @Test func anEnvironmentEntryIsAtMostOneStringOfTheKernelCountingItsName() {
    // NAME=value: `AB=` is three bytes, so a value of 131,068 bytes fills the 131,072 with the NUL.
    let value = String(repeating: "v", count: 131_068)
    #expect(problems("jobs:\n  j:\n    command: env\n    env: {AB: \(value)}\n") == [])
    let refused = problems("env:\n  ABC: \(value)\njobs:\n  j:\n    command: env\n    env: {AB: \(value)v}\n")
    #expect(refused.count == 2)
    #expect(refused[0].hasPrefix("l.yaml:2:3: error: environment variable 'ABC' is 131072 bytes as NAME=value;"))
    #expect(refused[1].hasPrefix("l.yaml:6:11: error: environment variable 'AB' is 131072 bytes as NAME=value;"))
  }

  @Test func aJobsShellCommandAndEnvironmentTogetherStayWithinAMebibyte() {
    // Each value is under the one-string limit; eight of them fit the budget, nine do not,
    // whether the manifest or the job sets them and whether they are written or aliased.
    let value = kibibytes(120)
    let shared = (0..<4).map { "S\($0): \(value)" }.joined(separator: "\n  ")
    func job(_ name: String, ownVariables: Int) -> String {
      let own = (0..<ownVariables).map { "J\($0): *v" }.joined(separator: ", ")
      return "  \(name):\n    command: env\n    env: {\(own)}\n"
    }
    let text =
      "env:\n  \(shared)\n  V: &v \(value)\njobs:\n" + job("fits", ownVariables: 3) + job("over", ownVariables: 4)
    #expect(
      problems(text) == [
        "l.yaml:11:3: error: job 'over' passes 1.05 MiB of command and environment to /bin/sh; at most 1 MiB is allowed (half the kernel's 2 MiB ARG_MAX)"
      ])
  }

  @Test func aJobOverridingALargeSharedVariableCountsOnlyItsOwn() {
    let value = kibibytes(120)
    let shared = (0..<9).map { "S\($0): \(value)" }.joined(separator: "\n  ")
    let overrides = (0..<9).map { "S\($0): small" }.joined(separator: ", ")
    let text = "env:\n  \(shared)\njobs:\n  slim: {command: env, env: {\(overrides)}}\n"
    #expect(problems(text) == [])
    #expect(problems(text + "  full: {command: env}\n").count == 1)
  }

  @Test func moreThanAHundredProblemsKeepTheFirstHundredInReadingOrderAndCountTheRest() {
    let jobs = (0..<100_000).map { "  j\($0): {command: make, colour: red}" }.joined(separator: "\n")
    let source = SourceText(path: "l.yaml", text: "jobs:\n" + jobs + "\n")
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else {
      Issue.record("accepted")
      return
    }
    #expect(errors.diagnostics.count == 100)
    #expect(errors.omittedCount == 99_900)
    #expect(errors.diagnostics.map(\.location?.line) == (2..<102).map { $0 })
    let rendered = DiagnosticRenderer.render(errors, sources: [source])
    #expect(rendered.hasSuffix("\noprun: and 99900 more errors (only the first 100 are shown)\n"))
  }

  @Test func theShownProblemsAreTheFirstInReadingOrderAcrossDecodingAndTheGraph() {
    // The unknown dependencies (found when the graph is built) come before the unknown keys
    // (found when decoding) in the file, so they are the ones shown.
    let early = (0..<150).map { "  d\($0): {command: make, dependencies: [nowhere]}" }
    let late = (0..<150).map { "  k\($0): {command: make, colour: red}" }
    let source = SourceText(path: "l.yaml", text: "jobs:\n" + (early + late).joined(separator: "\n") + "\n")
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else {
      Issue.record("accepted")
      return
    }
    #expect(errors.diagnostics.allSatisfy { $0.message.hasPrefix("unknown dependency 'nowhere'") })
    #expect(errors.omittedCount == 200)
  }
}

@Suite struct ManifestScaleTests {
  @Test func manyKeysWrittenTwiceInEnvAndQueuesAreReportedInLinearTime() {
    // 20,000 keys, then the last one 20,000 times more: a scan of the mapping per duplicate
    // would compare 400 million keys.
    let keys = (0..<20_000).map { "  K\($0): v" } + Array(repeating: "  K19999: v", count: 20_000)
    let queues = (0..<20_000).map { "  q\($0): {}" } + Array(repeating: "  q19999: {}", count: 20_000)
    let text = "env:\n" + keys.joined(separator: "\n") + "\nqueues:\n" + queues.joined(separator: "\n")
    let source = SourceText(path: "d.yaml", text: text + "\njobs:\n  a: {command: x}\n")
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else {
      Issue.record("accepted")
      return
    }
    #expect(errors.diagnostics.count + errors.omittedCount == 40_000)
    #expect(
      errors.diagnostics.first?.description
        == "d.yaml:20002:3: error: duplicate key 'K19999' in 'env' (first written at line 20001, column 3)")
  }

  @Test func manyJobsOnUnknownQueuesAmongManyQueuesAreReportedWithoutListingThem() {
    let queues = (0..<30_000).map { "  q\($0): {}" }.joined(separator: "\n")
    let jobs = (0..<30_000).map { "  j\($0): {command: x, queue: nowhere}" }.joined(separator: "\n")
    let source = SourceText(path: "q.yaml", text: "queues:\n" + queues + "\njobs:\n" + jobs + "\n")
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else {
      Issue.record("accepted")
      return
    }
    #expect(errors.diagnostics.count + errors.omittedCount == 30_000)
    #expect(errors.diagnostics.first?.message == "unknown queue 'nowhere' of job 'j0'")
  }

  /// A misspelt name is looked up once and the answer given to every job that wrote it; the
  /// same unknown key in a queue is answered with the queue's keys, not the job's.
  @Test func aNameMisspeltByManyJobsIsAnsweredForEachOfThem() {
    let jobs = (0..<150).map { "  r\($0): {command: x, queue: biuld, dependncies: []}" }
    let text = "queues:\n  build: {colour: red}\njobs:\n  a: {command: x, colour: red}\n" + jobs.joined(separator: "\n")
    let source = SourceText(path: "m.yaml", text: text + "\n")
    guard case .failure(let errors) = ManifestLoader.graph(from: source, defaultMaxConcurrent: 1) else {
      Issue.record("accepted")
      return
    }
    let shown = errors.diagnostics.map { $0.message }
    #expect(shown.count == 100)
    #expect(shown[0] == "unknown key 'colour' in queue 'build' (expected 'max-concurrent', 'qos' or 'resources')")
    #expect(shown[1].hasPrefix("unknown key 'colour' in job 'a' (expected 'command', 'commands', "))
    for job in 0..<49 {
      #expect(shown[2 + 2 * job] == "unknown queue 'biuld' of job 'r\(job)' (did you mean 'build'?)")
      #expect(shown[3 + 2 * job] == "unknown key 'dependncies' in job 'r\(job)' (did you mean 'dependencies'?)")
    }
    #expect(errors.omittedCount == 2 + 2 * 150 - 100)
  }
}
