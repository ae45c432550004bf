import OprunCore
import Testing

/// SPEC §9: a job's fingerprint is a hash of what it runs — its commands, env, cwd, timeout
/// and its dependencies' fingerprints — and of nothing that only orders or reports a run.
@Suite struct JobFingerprintTests {
  private func graph(_ yaml: String, path: String = "jobs.yaml") throws -> JobGraph {
    try ManifestLoader.graph(from: SourceText(path: path, text: yaml), defaultMaxConcurrent: 4).get()
  }

  /// Each job's fingerprint, by name.
  private func fingerprints(_ yaml: String, path: String = "jobs.yaml") throws -> [String: JobFingerprint] {
    let graph = try graph(yaml, path: path)
    let fingerprints = graph.fingerprints()
    #expect(fingerprints.count == graph.jobs.count)
    return Dictionary(uniqueKeysWithValues: zip(graph.jobs.map(\.name), fingerprints))
  }

  /// The parts of `job`'s fingerprint that differ between the two manifests, in part order.
  private func changedParts(_ job: String, _ before: String, _ after: String) throws -> [FingerprintPart] {
    let (old, new) = (try fingerprints(before)[job]!, try fingerprints(after)[job]!)
    return FingerprintPart.allCases.filter { old.parts[$0] != new.parts[$0] }
  }

  private let base = """
    env: {SHARED: one}
    jobs:
      fetch: {command: curl -O x}
      build:
        commands: [make -C lib, make -C app]
        dependencies: [fetch]
        env: {CC: gcc, JOBS: "4"}
        cwd: src
        timeout: 5m
    """

  @Test func theSameManifestLoadedTwiceHasTheSameFingerprints() throws {
    let first = try graph(base).fingerprints()
    let second = try graph(base).fingerprints()
    #expect(first == second)
    #expect(first.allSatisfy { fingerprint in FingerprintPart.allCases.allSatisfy { fingerprint.parts[$0] != nil } })
    #expect(first[0].value != first[1].value)
  }

  @Test func aChangedCommandChangesTheFingerprintAndNamesCommand() throws {
    let changed = base.replacingOccurrences(of: "make -C app", with: "make -C app -j8")
    #expect(try fingerprints(base)["build"] != fingerprints(changed)["build"])
    #expect(try changedParts("build", base, changed) == [.command])
  }

  @Test func theOrderOfTheCommandsCounts() throws {
    let swapped = base.replacingOccurrences(of: "[make -C lib, make -C app]", with: "[make -C app, make -C lib]")
    #expect(try fingerprints(base)["build"]!.value != fingerprints(swapped)["build"]!.value)
    #expect(try changedParts("build", base, swapped) == [.command])
  }

  @Test func commandsSplitDifferentlyHashDifferently() throws {
    let joined = try fingerprints("jobs: {a: {commands: [ab, c]}}")["a"]!
    let split = try fingerprints("jobs: {a: {commands: [a, bc]}}")["a"]!
    let one = try fingerprints("jobs: {a: {commands: [abc]}}")["a"]!
    #expect(Set([joined.value, split.value, one.value]).count == 3)
  }

  @Test func aChangedEnvValueChangesTheFingerprintAndNamesEnv() throws {
    let changed = base.replacingOccurrences(of: "JOBS: \"4\"", with: "JOBS: \"8\"")
    #expect(try fingerprints(base)["build"]!.value != fingerprints(changed)["build"]!.value)
    #expect(try changedParts("build", base, changed) == [.env])
  }

  @Test func anEnvVariableMovedBetweenNameAndValueCounts() throws {
    let first = try fingerprints("jobs: {a: {command: x, env: {AB: c}}}")["a"]!
    let second = try fingerprints("jobs: {a: {command: x, env: {A: bc}}}")["a"]!
    #expect(first.value != second.value)
  }

  @Test func theManifestsEnvCountsForEveryJobThatDoesNotSetTheVariableItself() throws {
    let changed = base.replacingOccurrences(of: "SHARED: one", with: "SHARED: two")
    let (old, new) = (try fingerprints(base), try fingerprints(changed))
    #expect(old["fetch"]!.value != new["fetch"]!.value)
    #expect(old["build"]!.value != new["build"]!.value)
    #expect(try changedParts("fetch", base, changed) == [.env])

    let overridden = "env: {CC: clang}\njobs: {a: {command: x, env: {CC: gcc}}}"
    let otherDefault = "env: {CC: icc}\njobs: {a: {command: x, env: {CC: gcc}}}"
    #expect(try fingerprints(overridden)["a"] == fingerprints(otherDefault)["a"])
  }

  @Test func aChangedCwdChangesTheFingerprintAndNamesCwd() throws {
    let changed = base.replacingOccurrences(of: "cwd: src", with: "cwd: source")
    #expect(try fingerprints(base)["build"]!.value != fingerprints(changed)["build"]!.value)
    #expect(try changedParts("build", base, changed) == [.cwd])

    let withManifestCwd = "cwd: out\n" + base
    #expect(try changedParts("build", base, withManifestCwd) == [.cwd])
    #expect(try changedParts("fetch", base, withManifestCwd) == [.cwd])
  }

  @Test func aChangedTimeoutChangesTheFingerprintAndNamesTimeout() throws {
    let longer = base.replacingOccurrences(of: "timeout: 5m", with: "timeout: 10m")
    #expect(try fingerprints(base)["build"]!.value != fingerprints(longer)["build"]!.value)
    #expect(try changedParts("build", base, longer) == [.timeout])

    let none = base.replacingOccurrences(of: "\n    timeout: 5m", with: "")
    #expect(none != base)
    #expect(try changedParts("build", base, none) == [.timeout])

    let fromDefaults = "defaults: {timeout: 1m}\n" + base
    #expect(try changedParts("fetch", base, fromDefaults) == [.timeout])
  }

  @Test func theSameTimeoutWrittenAnotherWayIsTheSame() throws {
    let minutes = base.replacingOccurrences(of: "timeout: 5m", with: "timeout: 300s")
    #expect(try fingerprints(base) == fingerprints(minutes))
  }

  @Test(
    arguments: [
      ("priority", "    priority: high\n"),
      ("qos", "    qos: background\n"),
      ("queue", "    queue: network\n"),
      ("run-if", "    run-if: always\n"),
      ("completion", "    completion: ./notify.sh\n"),
      ("description", "    description: Builds everything\n"),
      ("retries", "    retries: 3\n"),
      ("interactive", "    interactive: true\n"),
    ] as [(String, String)])
  func whatOnlyOrdersOrReportsARunDoesNotCount(key: String, line: String) throws {
    let plain = "queues: {network: {max-concurrent: 2}}\n" + base
    let changed = plain + "\n" + line
    #expect(try fingerprints(plain) == fingerprints(changed), "\(key)")
  }

  @Test func defaultsAndTheRunsSettingsDoNotCount() throws {
    let changed =
      """
      name: other
      max-concurrent: 1
      on-failure: continue
      defaults: {priority: low, qos: utility, retries: 2}

      """ + base
    #expect(try fingerprints(base) == fingerprints(changed))
  }

  @Test func theOrderEnvKeysAreWrittenInDoesNotCount() throws {
    let reordered = base.replacingOccurrences(of: "{CC: gcc, JOBS: \"4\"}", with: "{JOBS: \"4\", CC: gcc}")
    #expect(reordered != base)
    #expect(try fingerprints(base) == fingerprints(reordered))

    let shared = "env: {A: '1', B: '2'}\njobs: {a: {command: x}}"
    let sharedReordered = "env: {B: '2', A: '1'}\njobs: {a: {command: x}}"
    #expect(try fingerprints(shared) == fingerprints(sharedReordered))
  }

  @Test func theOrderJobsAndDependenciesAreWrittenInDoesNotCount() throws {
    let first = "jobs: {a: {command: x}, b: {command: y}, c: {command: z, dependencies: [a, b]}}"
    let second = "jobs: {c: {command: z, dependencies: [b, a]}, b: {command: y}, a: {command: x}}"
    #expect(try fingerprints(first) == fingerprints(second))
  }

  private let chain = """
    jobs:
      a: {command: make a}
      b: {command: make b, dependencies: [a]}
      c: {command: make c, dependencies: [b]}
      d: {command: make d, dependencies: [a]}
      e: {command: make e}
    """

  @Test func aChangeUpstreamChangesEveryJobDownstreamButNoSibling() throws {
    let old = try fingerprints(chain)
    let changedA = try fingerprints(chain.replacingOccurrences(of: "make a", with: "make A"))
    #expect(["a", "b", "c", "d"].allSatisfy { old[$0]!.value != changedA[$0]!.value })
    #expect(old["e"] == changedA["e"])

    let changedB = try fingerprints(chain.replacingOccurrences(of: "make b", with: "make B"))
    #expect(["b", "c"].allSatisfy { old[$0]!.value != changedB[$0]!.value })
    #expect(["a", "d", "e"].allSatisfy { old[$0] == changedB[$0] })
  }

  @Test func aJobChangedOnlyUpstreamHasEveryPartUnchanged() throws {
    let old = try fingerprints(chain)
    let new = try fingerprints(chain.replacingOccurrences(of: "make a", with: "make A"))
    #expect(old["c"]!.value != new["c"]!.value)
    #expect(old["c"]!.parts == new["c"]!.parts)
  }

  @Test func anAddedOrRenamedDependencyNamesDependencies() throws {
    let added = chain.replacingOccurrences(of: "make e}", with: "make e, dependencies: [a]}")
    #expect(try changedParts("e", chain, added) == [.dependencies])

    let renamed = chain.replacingOccurrences(of: "d: {command: make d, dependencies: [a]}", with: "")
      .replacingOccurrences(of: "  a: {command: make a}", with: "  z: {command: make a}")
      .replacingOccurrences(of: "[a]", with: "[z]")
    #expect(try changedParts("b", chain, renamed) == [.dependencies])
  }

  @Test(arguments: [
    "jobs: {a: {command: x}}",
    "jobs: {a: {command: x, cwd: .}}",
    "jobs: {a: {command: x, cwd: sub}}",
    "jobs: {a: {command: x, cwd: ./sub}}",
    "jobs: {a: {command: x, cwd: sub/deeper/}}",
    "jobs: {a: {command: x, cwd: ../sibling}}",
    "jobs: {a: {command: x, cwd: /opt/elsewhere}}",
    "cwd: build\njobs: {a: {command: x}, b: {command: y, cwd: sub}, c: {command: z, cwd: /abs}}",
    "cwd: .\njobs: {a: {command: x}, b: {command: y, cwd: sub}}",
    "cwd: /abs/dir\njobs: {a: {command: x}, b: {command: y, cwd: sub}}",
    "jobs: {a: {command: x, cwd: /abs/dir/sub}, b: {command: y, cwd: /abs/dir}}",
    "jobs: {a: {command: x, cwd: ''}}",
  ])
  func theSameManifestNamedByAnotherPathHasTheSameFingerprints(yaml: String) throws {
    let bare = try fingerprints(yaml, path: "jobs.yaml")
    for path in ["./jobs.yaml", "/abs/dir/jobs.yaml", "dir/jobs.yaml", "./dir/jobs.yaml", "/jobs.yaml"] {
      #expect(try fingerprints(yaml, path: path) == bare, "\(path)")
    }
  }

  @Test func aCwdOutsideTheFolderIsNotTheFolder() throws {
    let inFolder = try fingerprints("jobs: {a: {command: x}}", path: "/abs/dir/jobs.yaml")["a"]!
    let sibling = try fingerprints("jobs: {a: {command: x, cwd: /abs/dirt}}", path: "/abs/dir/jobs.yaml")["a"]!
    let parent = try fingerprints("jobs: {a: {command: x, cwd: ..}}", path: "/abs/dir/jobs.yaml")["a"]!
    #expect(Set([inFolder.value, sibling.value, parent.value]).count == 3)
  }

  @Test(
    arguments: [
      (0, "0000000000000000"),
      (0xab, "00000000000000ab"),
      (0x0123_4567_89ab_cdef, "0123456789abcdef"),
      (UInt64.max, "ffffffffffffffff"),
    ] as [(UInt64, String)])
  func textIsSixteenLowerCaseHexDigitsAndReadsBack(value: UInt64, text: String) {
    #expect(JobFingerprint.text(of: value) == text)
    #expect(JobFingerprint(value: value, parts: [:]).text == text)
    #expect(JobFingerprint.value(of: text) == value)
  }

  @Test func everyFingerprintOfAGraphReadsBackFromItsText() throws {
    for fingerprint in try graph(chain).fingerprints() {
      #expect(fingerprint.text.utf8.count == 16)
      #expect(JobFingerprint.value(of: fingerprint.text) == fingerprint.value)
    }
  }

  @Test func upperCaseHexDigitsAreHexDigitsToo() {
    #expect(JobFingerprint.value(of: "0123456789ABCDEF") == 0x0123_4567_89ab_cdef)
  }

  @Test(arguments: [
    "", "0", "abc", "000000000000000", "00000000000000000", "000000000000000g", "0x00000000000000",
    " 000000000000000", "000000000000000 ", "+00000000000000f", "-000000000000000", "-00000000000000f",
    "0000000000000_00", "ffffffffffffffff0", "０００００００００００００００",
  ])
  func anythingButSixteenHexDigitsIsRefused(text: String) {
    #expect(JobFingerprint.value(of: text) == nil, "\(text)")
  }

  @Test func theCwdPartIsTheCwdAsWrittenNotWhereTheManifestHappensToBe() throws {
    let here = try graph("jobs: {a: {command: x, cwd: sub}}", path: "/abs/dir/jobs.yaml")
    let there = try graph("jobs: {a: {command: x, cwd: sub}}", path: "/elsewhere/jobs.yaml")
    #expect(here.jobs[0].cwd == "/abs/dir/sub")
    #expect(here.jobs[0].writtenCwd == "sub")
    #expect(here.fingerprints() == there.fingerprints())

    var moved = here
    moved.jobs[0].writtenCwd = "other"
    let written = try graph("jobs: {a: {command: x, cwd: other}}", path: "/abs/dir/jobs.yaml")
    #expect(moved.fingerprints()[0].parts[.cwd] != here.fingerprints()[0].parts[.cwd])
    #expect(moved.fingerprints() == written.fingerprints())
  }
}
