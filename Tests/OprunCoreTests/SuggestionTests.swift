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

  @Test func editDistanceCountsATranspositionAsOneEdit() {
    let distance = { (a: String, b: String) in Suggestion.editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }
    #expect(distance("biuld", "build") == 1)
    #expect(distance("", "abc") == 3)
    #expect(distance("kitten", "sitting") == 3)
  }
}
