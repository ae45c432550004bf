import OprunCore
import Testing

/// YAML merge keys (`<<: *common`, `<<: [*a, *b]`) with YAML 1.1's precedence, wherever a
/// manifest has a mapping.
@Suite struct ManifestMergeKeysTests {
  private func manifest(_ text: String) throws -> Manifest {
    try ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)).get()
  }

  private func errors(_ text: String) -> [String] {
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)) else {
      Issue.record("the manifest was accepted")
      return []
    }
    return errors.diagnostics.map(\.description)
  }

  @Test func aMergedMappingGivesItsKeysToTheJob() throws {
    let text = """
      x-common: &common {retries: 2, timeout: 5s, priority: high}
      jobs:
        a:
          <<: *common
          command: make
      """
    let job = try #require(try manifest(text).jobs.first)
    #expect(job.commands == ["make"])
    #expect(job.retries == 2)
    #expect(job.timeout == 5)
    #expect(job.priority == .high)
  }

  @Test func aKeyWrittenInTheMappingWinsWhereverTheMergeIsWritten() throws {
    let text = """
      x-common: &common {retries: 2, timeout: 5s}
      jobs:
        before:
          retries: 7
          <<: *common
          command: make
        after:
          command: make
          <<: *common
          retries: 7
      """
    let jobs = try manifest(text).jobs
    #expect(jobs.map(\.retries) == [7, 7])
    #expect(jobs.map(\.timeout) == [5, 5])
  }

  @Test func inAListOfMergesTheEarlierMappingWins() throws {
    let text = """
      x-fast: &fast {timeout: 1s, retries: 0}
      x-patient: &patient {timeout: 1h, retries: 3, priority: low}
      jobs:
        a: {<<: [*fast, *patient], command: make}
        b: {<<: [*patient, *fast], command: make}
      """
    let jobs = try manifest(text).jobs
    #expect(jobs.map(\.timeout) == [1, 3600])
    #expect(jobs.map(\.retries) == [0, 3])
    #expect(jobs.map(\.priority) == [.low, .low])
  }

  @Test func aMergedMappingMayItselfMerge() throws {
    let text = """
      x-base: &base {retries: 1, timeout: 2s, qos: utility}
      x-ci: &ci {<<: *base, retries: 4}
      jobs:
        a: {<<: *ci, command: make, timeout: 9s}
      """
    let job = try #require(try manifest(text).jobs.first)
    #expect(job.retries == 4)
    #expect(job.timeout == 9)
    #expect(job.qos == .utility)
  }

  @Test func mergesWorkInDefaultsQueuesAndEnv() throws {
    let text = """
      x-env: &env {CC: clang, MODE: debug}
      x-limits: &limits {max-concurrent: 3, qos: background}
      defaults:
        <<: {priority: low, retries: 1}
        retries: 2
      queues:
        net: {<<: *limits, max-concurrent: 1}
      env:
        <<: *env
        MODE: release
      jobs:
        a:
          command: make
          env: {<<: *env, EXTRA: "1"}
      """
    let manifest = try manifest(text)
    #expect(manifest.defaults.priority == .low)
    #expect(manifest.defaults.retries == 2)
    #expect(manifest.queues.first?.maxConcurrent?.value == 1)
    #expect(manifest.queues.first?.qos == .background)
    #expect(manifest.env == [EnvironmentEntry("CC", "clang"), EnvironmentEntry("MODE", "release")])
    #expect(
      manifest.jobs.first?.env == [
        EnvironmentEntry("CC", "clang"), EnvironmentEntry("MODE", "debug"), EnvironmentEntry("EXTRA", "1"),
      ])
  }

  @Test func aKeyOverridingAMergedOneIsNoDuplicateButTwoWrittenKeysStillAre() {
    let text = """
      x-common: &common {retries: 2}
      jobs:
        a:
          <<: *common
          command: make
          retries: 3
          retries: 4
      """
    #expect(
      errors(text) == [
        "a.yaml:7:5: error: duplicate key 'retries' in job 'a' (first written at line 6, column 5)"
      ])
  }

  @Test func mergingSomethingOtherThanAMappingIsAnErrorAtTheMergeKey() {
    let text = """
      x-name: &name make
      jobs:
        a:
          <<: *name
          command: make
        b:
          <<: [{retries: 1}, [1, 2]]
          command: make
        c:
          <<:
          command: make
      """
    #expect(
      errors(text) == [
        "a.yaml:4:5: error: '<<' merges a mapping or a list of mappings, found 'make'",
        "a.yaml:7:5: error: '<<' merges mappings, but its list holds a list",
        "a.yaml:10:5: error: '<<' merges a mapping or a list of mappings, found nothing",
      ])
  }

  @Test func aSecondMergeKeyInOneMappingIsADuplicate() {
    let text = "jobs:\n  a:\n    <<: {retries: 1}\n    <<: {timeout: 1s}\n    command: make\n"
    #expect(
      errors(text) == [
        "a.yaml:4:5: error: duplicate key '<<' (first written at line 3, column 5); merge several mappings with '<<: [*a, *b]'"
      ])
  }

  @Test func aProblemInAMergedKeyIsReportedWhereThatKeyIsWritten() {
    let text = """
      x-common: &common
        retries: many
        needs: [b]
      jobs:
        a: {<<: *common, command: make}
      """
    #expect(
      errors(text) == [
        "a.yaml:2:12: error: expected a whole number for 'retries', found 'many'",
        "a.yaml:3:3: error: unknown key 'needs' in job 'a' (did you mean 'dependencies'?)",
      ])
  }

  @Test func mergedJobsKeepTheirPlaceInManifestOrder() throws {
    let text = """
      x-more: &more
        b: {command: true}
        c: {command: true}
      jobs:
        a: {command: true}
        <<: *more
        c: {command: false}
        d: {command: true}
      """
    let jobs = try manifest(text).jobs
    #expect(jobs.map(\.name) == ["a", "b", "c", "d"])
    #expect(jobs.first { $0.name == "c" }?.commands == ["false"])
  }

  @Test func aQuotedMergeKeyIsAnOrdinaryKey() {
    let text = "jobs:\n  a: {\"<<\": {retries: 1}, command: make}\n"
    #expect(errors(text).first?.hasPrefix("a.yaml:2:7: error: unknown key '<<' in job 'a'") == true)
  }

  @Test func mergesCannotEscapeTheAliasExpansionLimit() {
    var text = "x-a: &a {k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7, k8: 8, k9: 9}\n"
    for level in 1...7 {
      let previous = level == 1 ? "a" : "l\(level - 1)"
      let merges = (0..<10).map { "{<<: *\(previous), m\($0): 0}" }.joined(separator: ", ")
      text += "x-l\(level): &l\(level) [\(merges)]\n"
    }
    text += "jobs: {a: {command: true}}\n"
    #expect(errors(text).contains { $0.contains("aliases expand the document to more than") })
  }

  @Test func aComposeStyleManifestSharesSettingsThroughAnXAnchor() throws {
    let text = """
      name: services
      x-common: &common
        qos: utility
        retries: 1
        timeout: 30s
        env: {LOG_LEVEL: info}
      jobs:
        db:
          <<: *common
          command: ./start-db.sh
        api:
          <<: *common
          command: ./start-api.sh
          dependencies: [db]
          env: {LOG_LEVEL: debug}
        web:
          <<: *common
          command: ./start-web.sh
          dependencies: [api]
          retries: 0
      """
    let jobs = try manifest(text).jobs
    #expect(jobs.map(\.name) == ["db", "api", "web"])
    #expect(jobs.allSatisfy { $0.qos == .utility && $0.timeout == 30 })
    #expect(jobs.map(\.retries) == [1, 1, 0])
    #expect(
      jobs.map(\.env) == [
        [EnvironmentEntry("LOG_LEVEL", "info")], [EnvironmentEntry("LOG_LEVEL", "debug")],
        [EnvironmentEntry("LOG_LEVEL", "info")],
      ])
    #expect(jobs.map { $0.dependencies.map(\.value) } == [[], ["db"], ["api"]])
  }
}
