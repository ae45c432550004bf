import PropertyBased
import Testing

@testable import OprunCore

/// The small languages inside values: durations, priorities as numbers, booleans, null.
@Suite struct ManifestValuesTests {
  private func timeout(_ text: String) -> Result<Double?, ManifestErrors> {
    ManifestFixtures.decoded(SourceText(path: "t.yaml", text: "jobs: {a: {command: x, timeout: \(text)}}"))
      .map { $0.jobs[0].timeout }
  }

  @Test(arguments: [
    ("500ms", 0.5), ("30s", 30), ("5m", 300), ("1h30m", 5400), ("1.5h", 5400), ("2", 2), ("0.25", 0.25),
    ("1m30s", 90), ("1h0m1s", 3601), ("'45'", 45),
  ])
  func durationsAreReadInSeconds(text: String, seconds: Double) throws {
    #expect(try timeout(text).get() == seconds)
  }

  @Test(arguments: ["0", "-1", "5 minutes", "1h30", "5x", "ms", "1e3", "inf", "nan", "''", "1..5s"])
  func malformedOrNonPositiveDurationsAreRefused(text: String) {
    guard case .failure(let errors) = timeout(text) else {
      Issue.record("\(text) was accepted")
      return
    }
    #expect(errors.diagnostics.first?.message.hasPrefix("bad duration") == true)
  }

  @Test func prioritiesAreWordsOrTheirNumbers() throws {
    let text =
      "jobs: {a: {command: x, priority: -8}, b: {command: x, priority: 4}, c: {command: x, priority: veryHigh}}"
    let manifest = try ManifestFixtures.decoded(SourceText(path: "p.yaml", text: text)).get()
    #expect(manifest.jobs.map(\.priority) == [.veryLow, .high, .veryHigh])
  }

  @Test func aQuotedTrueIsNotABoolean() {
    let text = "jobs: {a: {command: x, barrier: 'true'}}"
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "b.yaml", text: text)) else {
      Issue.record("a quoted boolean was accepted")
      return
    }
    #expect(errors.diagnostics.map(\.message) == ["expected true or false for 'barrier', found 'true'"])
  }

  @Test func aNullValueIsTheSameAsNoValue() throws {
    let text = "name: ~\nenv:\ndefaults:\nqueues:\njobs:\n  a:\n    command: x\n    priority: null\n    dependencies:\n"
    let manifest = try ManifestFixtures.decoded(SourceText(path: "n.yaml", text: text)).get()
    #expect(manifest.name == "n")
    #expect(manifest.jobs[0].priority == nil)
    #expect(manifest.jobs[0].dependencies.isEmpty)
  }

  @Test func aKeyIsTextEvenWhenItLooksLikeNullOrANumber() throws {
    let text = "jobs: {null: {command: x}, 42: {command: y}, true: {command: z}}"
    let manifest = try ManifestFixtures.decoded(SourceText(path: "k.yaml", text: text)).get()
    #expect(manifest.jobs.map(\.name) == ["null", "42", "true"])
  }

  @Test func escapesAndBlockScalarsAreDecodedByYAMLRules() throws {
    let text =
      "jobs:\n  a:\n    command: \"printf '\\\\t%s\\\\n' caf\\u00e9\"\n  b:\n    command: |\n      echo one\n      echo two\n"
    let manifest = try ManifestFixtures.decoded(SourceText(path: "e.yaml", text: text)).get()
    #expect(manifest.jobs[0].commands == ["printf '\\t%s\\n' café"])
    #expect(manifest.jobs[1].commands == ["echo one\necho two\n"])
  }

  @Test func columnsCountCharactersNotBytes() throws {
    let text = "jobs:\n  café: {command: x, dependencies: [thé]}\n"
    guard
      case .failure(let errors) = ManifestLoader.graph(
        from: SourceText(path: "u.yaml", text: text), defaultMaxConcurrent: 1)
    else {
      Issue.record("an unknown dependency was accepted")
      return
    }
    #expect(errors.diagnostics.map(\.location) == [ManifestLocation(file: "u.yaml", line: 2, column: 37)])
  }
}

/// Anchors and aliases follow YAML: an alias names the most recent anchor before it.
@Suite struct ManifestAliasTests {
  private func commands(_ text: String) throws -> [[String]] {
    try ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)).get().jobs.map(\.commands)
  }

  @Test func anAliasNamesTheMostRecentAnchorEvenInsideAnOuterOneOfTheSameName() throws {
    let text = "jobs:\n  a: &x {commands: [&x one, *x]}\n  b: {command: *x}\n"
    #expect(try commands(text) == [["one", "one"], ["one"]])
  }

  @Test func anAliasToItsOwnOpenAnchorIsRefused() {
    let text = "jobs:\n  a: &x {command: make, dependencies: *x}\n"
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "a.yaml", text: text)) else {
      Issue.record("a recursive alias was accepted")
      return
    }
    #expect(
      errors.diagnostics.map(\.description) == [
        "a.yaml:2:39: error: alias '*x' refers to a node that contains it (a recursive alias)"
      ])
  }
}

/// The UTF-8 check agrees with the standard library's.
@Suite struct UTF8ValidationTests {
  @Test func invalidBytesAreFoundExactlyWhenTheStandardLibraryRefusesTheText() async {
    let bytes = Gen.element(
      of: [0x41, 0x0A, 0x80, 0xBF, 0xC2, 0xC0, 0xE0, 0xED, 0xA0, 0xF0, 0xF4, 0x90, 0xFF] as [UInt8])
    await propertyCheck(count: 2000, input: bytes.array(of: 0...12)) { bytes in
      let unwrapped = bytes.map { $0! }
      let invalid = SourceText(path: "u.yaml", bytes: unwrapped).encodingProblem()
      #expect((invalid == nil) == (String(validating: unwrapped, as: UTF8.self) != nil))
    }
  }
}

@Suite struct ManifestQuotedValuesTests {
  @Test func aQuotedPriorityReadsLikeTheUnquotedOne() throws {
    let text =
      "jobs:\n  a: {command: x, priority: '4'}\n  b: {command: x, priority: \"-4\"}\n  c: {command: x, priority: \"high\"}\n"
    let manifest = try ManifestFixtures.decoded(SourceText(path: "p.yaml", text: text)).get()
    #expect(manifest.jobs.map(\.priority) == [.high, .low, .high])
  }

  @Test func aQuotedPriorityOutsideTheBandsIsStillRefused() {
    let text = "jobs:\n  a: {command: x, priority: '5'}\n"
    guard case .failure(let errors) = ManifestFixtures.decoded(SourceText(path: "p.yaml", text: text)) else {
      Issue.record("accepted")
      return
    }
    #expect(errors.diagnostics.map(\.message).first?.hasPrefix("unknown priority '5'") == true)
  }

  @Test func standardTagsReadAsTheirUntaggedValues() throws {
    let text = "jobs:\n  a: {command: !!str true, priority: !!int '4', retries: !!int \"2\", barrier: !!bool 'true'}\n"
    let manifest = try ManifestFixtures.decoded(SourceText(path: "t.yaml", text: text)).get()
    #expect(manifest.jobs[0].commands == ["true"])
    #expect(manifest.jobs[0].priority == .high)
    #expect(manifest.jobs[0].retries == 2)
    #expect(manifest.jobs[0].barrier)
  }
}
