import OprunCore
import Testing

@Suite struct DisplayTextTests {
  @Test func textATerminalShowsAsItIsIsUnchanged() {
    #expect(DisplayText.escaped("build-é_日本 \\ x") == "build-é_日本 \\ x")
  }

  @Test func controlCharactersBecomeTheirYAMLEscapes() {
    #expect(DisplayText.escaped("x\u{1B}[2Jy") == "x\\e[2Jy")
    #expect(DisplayText.escaped("a\nb\tc\rd\0e\u{7F}") == "a\\nb\\tc\\rd\\0e\\x7F")
    #expect(DisplayText.escaped("\u{85}\u{9B}") == "\\N\\x9B")
  }

  @Test func lineSeparatorsAndBidirectionalOverridesAreEscaped() {
    #expect(DisplayText.escaped("a\u{2028}b\u{202E}c\u{2066}") == "a\\u2028b\\u202Ec\\u2066")
  }
}
