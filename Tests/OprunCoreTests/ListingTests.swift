import Testing

@testable import OprunCore

/// How messages list names: all when few, else the first few and a count.
@Suite struct ListingTests {
  @Test func fewNamesAreAllListed() {
    #expect(Listing.words(["a"]) == "a")
    #expect(Listing.words(["a", "b", "c"]) == "a, b or c")
    #expect(Listing.words(["a", "b"], quoted: true, conjunction: "and") == "'a' and 'b'")
    #expect(Listing.bounded(["a", "b", "c"], limit: 3) == "a, b and c")
  }

  @Test func manyNamesAreCutAtTheLimitAndCounted() {
    let names = (1...25).map { "j\($0)" }
    #expect(Listing.bounded(names, limit: 3) == "j1, j2, j3 and 22 more")
    #expect(Listing.bounded(names.prefix(4), limit: 3, quoted: true) == "'j1', 'j2', 'j3' and 1 more")
  }
}
