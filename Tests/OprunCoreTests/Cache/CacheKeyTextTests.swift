import OprunCore
import Testing

/// What a cache key is made of (SPEC §14): each part counts, and no two sets of parts run
/// together into the same bytes.
@Suite struct CacheKeyTextTests {
  static func text(
    platform: String = "Linux x86_64", fingerprint: String = "f1", inputs: String = "i1",
    dependencies: [String] = ["d1"], environment: [(name: String, value: String?)] = [("CC", "cc")]
  ) -> [UInt8] {
    CacheKeyText(
      platform: platform, fingerprint: fingerprint, inputs: inputs, dependencyResults: dependencies,
      environment: environment
    ).bytes
  }

  @Test func theSamePartsMakeTheSameText() {
    #expect(Self.text() == Self.text())
  }

  @Test func everyPartChangesIt() {
    let base = Self.text()
    #expect(Self.text(platform: "Linux aarch64") != base)
    #expect(Self.text(fingerprint: "f2") != base)
    #expect(Self.text(inputs: "i2") != base)
    #expect(Self.text(dependencies: ["d2"]) != base)
    #expect(Self.text(dependencies: []) != base)
    #expect(Self.text(environment: [("CC", "clang")]) != base)
    #expect(Self.text(environment: []) != base)
  }

  @Test func anUnsetVariableDiffersFromAnEmptyOne() {
    #expect(Self.text(environment: [("CC", nil)]) != Self.text(environment: [("CC", "")]))
  }

  @Test func partsDoNotRunTogether() {
    #expect(Self.text(fingerprint: "ab", inputs: "c") != Self.text(fingerprint: "a", inputs: "bc"))
    #expect(Self.text(dependencies: ["a", "b"]) != Self.text(dependencies: ["ab"]))
  }

  @Test func theTextBeginsWithItsFormatVersion() {
    #expect(Self.text().dropFirst(8).starts(with: Array(CacheKeyText.formatVersion.utf8)))
  }
}
