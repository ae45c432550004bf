import Testing

@testable import OprunCore

/// A key written as another tool spells it is answered with oprun's key, wherever that key is
/// allowed; typos are still answered by edit distance.
@Suite struct ManifestKeySpellingsTests {
  /// The message for `key: value` written in job `x`, or at the top level with `inJob: false`.
  private func messages(for key: String, value: String = "1", inJob: Bool = true) -> [String] {
    let text =
      inJob
      ? "jobs:\n  x:\n    command: true\n    \(key): \(value)\n"
      : "\(key): \(value)\njobs:\n  x: {command: true}\n"
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)) else {
      Issue.record("'\(key)' was accepted")
      return []
    }
    return errors.diagnostics.map(\.message)
  }

  @Test(arguments: [
    "depends-on", "depends_on", "dependsOn", "needs", "deps", "after", "requires", "depends", "prerequisites",
    "Needs",
  ])
  func dependencySpellingsSuggestDependencies(key: String) {
    #expect(messages(for: key, value: "[a]") == ["unknown key '\(key)' in job 'x' (did you mean 'dependencies'?)"])
  }

  @Test(arguments: [
    ("cmd", "command"), ("run", "command"), ("exec", "command"), ("entrypoint", "command"),
    ("cmds", "commands"), ("script", "commands"), ("steps", "commands"), ("scripts", "commands"),
  ])
  func commandSpellingsSuggestCommandOrCommands(key: String, meant: String) {
    #expect(messages(for: key) == ["unknown key '\(key)' in job 'x' (did you mean '\(meant)'?)"])
  }

  @Test(arguments: [
    ("environment", "env"), ("vars", "env"), ("variables", "env"),
    ("dir", "cwd"), ("working-directory", "cwd"), ("working_dir", "cwd"), ("workdir", "cwd"),
    ("workingDirectory", "cwd"), ("chdir", "cwd"),
    ("timeout-minutes", "timeout"), ("timeout_seconds", "timeout"), ("timeoutSec", "timeout"),
    ("timeout_in_minutes", "timeout"),
    ("retry", "retries"), ("attempts", "retries"), ("max_retries", "retries"), ("retryPolicy", "retries"),
    ("if", "run-if"), ("when", "run-if"), ("condition", "run-if"), ("run_if", "run-if"), ("runIf", "run-if"),
    ("desc", "description"), ("summary", "description"),
    ("nice", "qos"), ("prio", "priority"),
    ("finally", "completion"), ("after_script", "completion"), ("defer", "completion"),
    ("pool", "queue"), ("wait", "barrier"), ("tty", "interactive"),
  ])
  func jobKeySpellingsSuggestTheJobKey(key: String, meant: String) {
    #expect(messages(for: key) == ["unknown key '\(key)' in job 'x' (did you mean '\(meant)'?)"])
  }

  @Test(arguments: [
    ("max_concurrent", "max-concurrent"), ("maxConcurrent", "max-concurrent"), ("concurrency", "max-concurrent"),
    ("parallel", "max-concurrent"), ("max-parallel", "max-concurrent"), ("parallelism", "max-concurrent"),
    ("j", "max-concurrent"), ("max-jobs", "max-concurrent"), ("maxActiveSteps", "max-concurrent"),
    ("on_failure", "on-failure"), ("onFailure", "on-failure"), ("continue-on-error", "on-failure"),
    ("fail_fast", "on-failure"), ("keep-going", "on-failure"), ("allow_failure", "on-failure"),
    ("environment", "env"), ("working_dir", "cwd"), ("tasks", "jobs"), ("services", "jobs"),
    ("default", "defaults"),
  ])
  func topLevelSpellingsSuggestTheTopLevelKey(key: String, meant: String) {
    #expect(messages(for: key, inJob: false) == ["unknown key '\(key)' (did you mean '\(meant)'?)"])
  }

  @Test func aSpellingIsSuggestedOnlyWhereItsKeyIsAllowed() {
    let listing =
      "'name', 'max-concurrent', 'on-failure', 'env', 'cwd', 'defaults', 'queues', 'jobs', 'slurm', 'budget', 'dotenv', 'secrets', 'include', 'vars' or 'cache'"
    #expect(messages(for: "needs", value: "[a]", inJob: false) == ["unknown key 'needs' (expected \(listing))"])
    #expect(messages(for: "concurrency").first?.hasPrefix("unknown key 'concurrency' in job 'x' (expected") == true)
  }

  @Test func queuesAndDefaultsGetTheirOwnKeys() {
    let text = """
      queues:
        net: {jobs: 2, nice: utility}
      defaults: {timeout-minutes: 5, retry: 1, prio: high}
      jobs:
        x: {command: true}
      """
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)) else {
      Issue.record("the misspelt keys were accepted")
      return
    }
    #expect(
      errors.diagnostics.map(\.message) == [
        "unknown key 'jobs' in queue 'net' (did you mean 'max-concurrent'?)",
        "unknown key 'nice' in queue 'net' (did you mean 'qos'?)",
        "unknown key 'timeout-minutes' in 'defaults' (did you mean 'timeout'?)",
        "unknown key 'retry' in 'defaults' (did you mean 'retries'?)",
        "unknown key 'prio' in 'defaults' (did you mean 'priority'?)",
      ])
  }

  @Test(arguments: [("comand", "command"), ("dependecies", "dependencies"), ("retires", "retries")])
  func typosAreStillAnsweredByEditDistance(key: String, meant: String) {
    #expect(messages(for: key) == ["unknown key '\(key)' in job 'x' (did you mean '\(meant)'?)"])
  }

  @Test func everySpellingNamesARealKey() {
    let keys: Set = [
      "name", "max-concurrent", "on-failure", "env", "cwd", "defaults", "queues", "jobs", "slurm", "command",
      "commands",
      "dependencies", "priority", "qos", "queue", "completion", "run-if", "timeout", "retries", "barrier",
      "description", "interactive", "resources", "budget", "cpus", "memory",
    ]
    for (spelling, meanings) in Suggestion.otherToolsKeys {
      #expect(meanings.allSatisfy(keys.contains), "\(spelling) -> \(meanings)")
      #expect(!meanings.contains(spelling), "\(spelling) means itself")
    }
  }
}

/// Top-level keys starting with `x-` belong to the manifest's author: a place for anchors.
@Suite struct ManifestExtensionKeysTests {
  @Test func topLevelXKeysAreIgnoredWhateverTheyHold() throws {
    let text = """
      x-common: &common {retries: 2, anything: [1, {nested: true}]}
      x-: 3
      x-null:
      jobs:
        a: {command: true}
      """
    let manifest = try ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)).get()
    #expect(manifest.jobs.map(\.name) == ["a"])
  }

  @Test func anXKeyInsideAJobIsStillAnError() {
    let text = "jobs:\n  a:\n    command: true\n    x-note: hi\n"
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)) else {
      Issue.record("x-note in a job was accepted")
      return
    }
    #expect(
      errors.diagnostics.map(\.description) == [
        "a.yaml:4:5: error: unknown key 'x-note' in job 'a' (keys starting with 'x-' are ignored only at the top level of the manifest)"
      ])
  }

  @Test func aKeyMerelyContainingXIsNotAnExtension() {
    let text = "X-common: 1\njobs:\n  a: {command: true}\n"
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)) else {
      Issue.record("X-common was accepted")
      return
    }
    #expect(errors.diagnostics.count == 1)
  }
}

/// The `slurm` section: read for `--backend slurm`, checked like every other mapping.
@Suite struct ManifestSlurmSectionTests {
  @Test func theSectionIsReadWithEveryKey() throws {
    let text = """
      slurm:
        partition: debug
        account: lab
        qos: {userInitiated: high, background: low}
        sbatch-args: [--exclusive, --mem=1G]
      jobs:
        a: {command: build}
      """
    let slurm = try #require(try ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)).get().slurm)
    #expect(slurm.partition == "debug" && slurm.account == "lab")
    #expect(slurm.qos == [.userInitiated: "high", .background: "low"])
    #expect(slurm.sbatchArguments == ["--exclusive", "--mem=1G"])
  }

  @Test func anUnknownKeyOrQoSClassIsReportedWhereItIsWritten() {
    let text = """
      slurm:
        partion: debug
        qos: {backgroud: low}
      jobs:
        a: {command: build}
      """
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)) else {
      Issue.record("accepted")
      return
    }
    let messages = errors.diagnostics.map { "\($0.location?.line ?? 0): \($0.message)" }
    #expect(messages.contains { $0.hasPrefix("2: unknown key 'partion' in 'slurm'") })
    #expect(messages.contains { $0.hasPrefix("3: unknown QoS 'backgroud'") })
  }
}
