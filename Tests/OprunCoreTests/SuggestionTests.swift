import Testing

@testable import OprunCore

/// "Did you mean": close names are suggested, far ones are not.
@Suite struct SuggestionTests {
  @Test(arguments: [
    ("biuld", "build"), ("comand", "command"), ("dependecies", "dependencies"), ("Fetch", "fetch"),
    ("max-concurent", "max-concurrent"), ("userinitiated", "userInitiated"),
  ])
  func aTypoIsMatched(typo: String, intended: String) {
    #expect(
      Suggestion.closest(
        to: typo, among: ["fetch", "build", "command", "dependencies", "max-concurrent", "userInitiated"]) == intended)
  }

  @Test(arguments: ["c", "zzz", "deploy", "colour"])
  func aDifferentWordIsNotMatched(word: String) {
    #expect(Suggestion.closest(to: word, among: ["a", "build", "command", "test"]) == nil)
  }

  @Test func aKeyInAnotherCaseStyleIsMatchedBeforeAnythingElse() {
    let keys = ["run-if", "max-concurrent", "timeout"]
    #expect(Suggestion.closestKey(to: "RUN_IF", among: keys) == "run-if")
    #expect(Suggestion.closestKey(to: "maxConcurrent", among: keys) == "max-concurrent")
  }

  @Test func anotherToolsWordIsMatchedOnlyToAKeyTheMappingAllows() {
    #expect(Suggestion.closestKey(to: "jobs", among: ["max-concurrent", "qos"]) == "max-concurrent")
    #expect(Suggestion.closestKey(to: "steps", among: ["command", "commands"]) == "commands")
    #expect(Suggestion.closestKey(to: "steps", among: ["name", "jobs"]) == "jobs")
    #expect(Suggestion.closestKey(to: "needs", among: ["name", "jobs"]) == nil)
  }

  @Test func editDistanceCountsATranspositionAsOneEdit() {
    let distance = { (a: String, b: String) in Suggestion.editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }
    #expect(distance("biuld", "build") == 1)
    #expect(distance("", "abc") == 3)
    #expect(distance("kitten", "sitting") == 3)
  }
}
