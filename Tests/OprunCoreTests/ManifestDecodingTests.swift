import OprunCore
import Testing

/// A valid manifest decoded field by field: every SPEC §1 key lands where it belongs.
@Suite struct ManifestDecodingTests {
  let manifest: Manifest

  init() throws {
    let source = try ManifestFixtures.source("valid/complete.yaml")
    manifest = try ManifestFixtures.decoded(source).get()
  }

  private func at(_ line: Int, _ column: Int) -> ManifestLocation {
    ManifestLocation(file: "complete.yaml", line: line, column: column)
  }

  private func job(_ name: String) throws -> JobSpec {
    try #require(manifest.jobs.first { $0.name == name })
  }

  @Test func topLevelKeys() {
    #expect(manifest.path == "complete.yaml")
    #expect(manifest.name == "ci")
    #expect(manifest.maxConcurrent == Located(3, at: at(3, 17)))
    #expect(manifest.onFailure == .cancelAll)
    #expect(
      manifest.env == [EnvironmentEntry("CC", "clang"), EnvironmentEntry("EMPTY", ""), EnvironmentEntry("DEBUG", "1")])
    #expect(manifest.cwd == Located("build", at: at(6, 6)))
  }

  @Test func defaults() {
    #expect(manifest.defaults.priority == .low)
    #expect(manifest.defaults.qos == .utility)
    #expect(manifest.defaults.timeout == 5400)
    #expect(manifest.defaults.retries == 2)
  }

  @Test func queuesInManifestOrder() {
    #expect(manifest.queues.map(\.name) == ["network", "gpu"])
    #expect(manifest.queues[0].location == at(13, 3))
    #expect(manifest.queues[0].maxConcurrent == Located(2, at: at(13, 29)))
    #expect(manifest.queues[0].qos == .background)
    #expect(manifest.queues[1].maxConcurrent == nil)
    #expect(manifest.queues[1].qos == nil)
  }

  @Test func jobsKeepManifestOrder() {
    #expect(manifest.jobs.map(\.name) == ["fetch", "build", "test", "gate", "report", "again"])
  }

  @Test func aJobWithOneCommand() throws {
    let fetch = try job("fetch")
    #expect(fetch.location == at(16, 3))
    #expect(fetch.commands == ["curl -fsSL https://example.org/a.tgz -o a.tgz"])
    #expect(fetch.dependencies.isEmpty)
    #expect(fetch.priority == .veryHigh)
    #expect(fetch.qos == .userInitiated)
    #expect(fetch.queue == Located("network", at: at(20, 12)))
    #expect(fetch.timeout == 0.5)
    #expect(fetch.retries == 0)
    #expect(fetch.description == "Download the sources")
    #expect(fetch.runIf == .success)
    #expect(fetch.barrier == false)
    #expect(fetch.interactive == false)
    #expect(fetch.completion == nil)
    #expect(fetch.env.isEmpty)
    #expect(fetch.cwd == nil)
  }

  @Test func aJobWithSeveralCommandsANumericPriorityEnvAndCwd() throws {
    let build = try job("build")
    #expect(build.commands == ["make -C lib", "make -C app"])
    #expect(build.dependencies == [Located("fetch", at: at(28, 20))])
    #expect(build.priority == .low)
    #expect(build.qos == nil)
    #expect(build.env == [EnvironmentEntry("CC", "gcc"), EnvironmentEntry("JOBS", "4")])
    #expect(build.cwd == "src")
    #expect(build.timeout == nil)
    #expect(build.retries == nil)
  }

  @Test func aJobWithCompletionRunIfTimeoutRetriesAndInteractive() throws {
    let test = try job("test")
    #expect(test.commands == ["make test"])
    #expect(test.dependencies.map(\.value) == ["build"])
    #expect(test.timeout == 300)
    #expect(test.retries == 1)
    #expect(test.completion == "./notify.sh")
    #expect(test.runIf == .always)
    #expect(test.interactive == true)
  }

  @Test func aBarrierJobOnTheMainQueueByName() throws {
    let gate = try job("gate")
    #expect(gate.barrier == true)
    #expect(gate.queue?.value == "ci")
  }

  @Test func aCommandWrittenAsABooleanAndADurationAsBareSeconds() throws {
    let report = try job("report")
    #expect(report.commands == ["true"])
    #expect(report.dependencies == [Located("test", at: at(49, 9))])
    #expect(report.runIf == .failure)
    #expect(report.qos == .default)
    #expect(report.timeout == 30)
  }

  @Test func anAliasedJobBodyIsACopyUnderItsOwnName() throws {
    let again = try job("again")
    let test = try job("test")
    #expect(again.location == at(53, 3))
    #expect(again.commands == test.commands)
    #expect(again.completion == test.completion)
    #expect(again.dependencies == test.dependencies)
  }

  @Test func theMainQueueIsNamedAfterTheFileWithoutAName() throws {
    let source = SourceText(path: "ci/nightly.build.yaml", text: "jobs: {a: {command: x}}\n")
    #expect(try ManifestFixtures.decoded(source).get().name == "nightly.build")
  }

  @Test func anEmptyJobsMappingIsAValidManifestWithNoJobs() throws {
    let source = SourceText(path: "jobs.yaml", text: "jobs: {}\n")
    #expect(try ManifestFixtures.decoded(source).get().jobs.isEmpty)
  }

  @Test func aByteOrderMarkAndWindowsLineEndingsAreAccepted() throws {
    let text = "\u{FEFF}jobs:\r\n  build:\r\n    command: make\r\n    dependencies: [x]\r\n  x: {command: y}\r\n"
    let manifest = try ManifestFixtures.decoded(SourceText(path: "jobs.yaml", text: text)).get()
    #expect(manifest.jobs.map(\.name) == ["build", "x"])
    #expect(manifest.jobs[0].dependencies[0].location == ManifestLocation(file: "jobs.yaml", line: 4, column: 20))
  }
}
