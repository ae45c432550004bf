import Foundation
import OprunRuntime
import Testing

@Suite struct ReportingFormattingTests {
  @Test(arguments: [
    (0.0, 3, "0.000"), (0.003, 3, "0.003"), (1.25, 1, "1.3"), (83.12, 3, "83.120"), (-0.25, 2, "-0.25"),
    (-0.0001, 3, "0.000"), (1234567.5, 0, "1234568"), (0.1, 6, "0.100000"),
  ])
  func decimalTextRoundsToFixedDigits(value: Double, digits: Int, expected: String) {
    #expect(DecimalText.string(value, fractionDigits: digits) == expected)
  }

  @Test(arguments: [(1.5, "1.5"), (2.0, "2"), (0.000001, "0.000001"), (1.2000004, "1.2"), (0.0000004, "0")])
  func decimalTextTrimsTrailingZerosForJSON(value: Double, expected: String) {
    #expect(DecimalText.string(value, fractionDigits: 6, trimmingZeros: true) == expected)
  }

  @Test func decimalTextWritesNullForValuesJSONCannotHold() {
    #expect(DecimalText.string(.nan, fractionDigits: 3) == "null")
    #expect(DecimalText.string(.infinity, fractionDigits: 3) == "null")
  }

  @Test func decimalTextFallsBackForHugeMagnitudes() {
    let text = DecimalText.string(1e300, fractionDigits: 3)
    #expect(Double(text) == 1e300)
  }

  @Test func decimalTextAgreesWithTheValueItRounds() {
    var generator = SplitMix64(seed: 42)
    for _ in 0..<5_000 {
      let value = Double(generator.next() % 10_000_000_000) / 1_000_000 - 5_000
      for digits in [3, 6] {
        let text = DecimalText.string(value, fractionDigits: digits)
        let parsed = try! #require(Double(text))
        #expect(abs(parsed - value) <= 0.5 / pow(10, Double(digits)) + 1e-9, "\(value) → \(text)")
        #expect(text.split(separator: ".").last?.count == digits)
      }
    }
  }

  @Test func integersIncludingTheExtremes() {
    var bytes: [UInt8] = []
    DecimalText.append(Int.min, to: &bytes)
    bytes.append(UInt8(ascii: " "))
    DecimalText.append(0, to: &bytes)
    bytes.append(UInt8(ascii: " "))
    DecimalText.append(Int.max, to: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == "\(Int.min) 0 \(Int.max)")
  }

  @Test(arguments: [(0.003, "0.003s"), (1.2344, "1.234s"), (83.12, "83.120s"), (3725.5, "3725.500s"), (-1, "0.000s")])
  func timestampsAreSecondsWithMilliseconds(seconds: Double, expected: String) {
    #expect(TimeText.timestamp(seconds) == expected)
  }

  @Test(arguments: [
    (0.3, "0.30s"), (1.214, "1.21s"), (12.4, "12.40s"), (59.994, "59.99s"), (59.996, "1m00s"), (123, "2m03s"),
    (3599.6, "1h00m00s"), (3723, "1h02m03s"),
  ])
  func durationsReadInTheLargestUsefulUnit(seconds: Double, expected: String) {
    #expect(TimeText.duration(seconds) == expected)
  }

  @Test func jsonStringsEscapeQuotesBackslashesAndControlCharacters() {
    #expect(JSONText.string("a\"b\\c\nd\te\r\u{8}\u{C}\u{1}é") == #""a\"b\\c\nd\te\r\b\f\u0001é""#)
  }

  @Test func everyEscapedStringParsesBackToItself() throws {
    let original = String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) }) + "ü✓😀"
    let document = "[" + JSONText.string(original) + "]"
    let parsed = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String]
    #expect(parsed == [original])
  }

  @Test(arguments: [(11, "SIGSEGV"), (9, "SIGKILL"), (15, "SIGTERM"), (2, "SIGINT"), (200, "signal 200")])
  func signalsAreNamedAsKillLists(signal: Int32, expected: String) {
    #expect(SignalName.of(signal) == expected)
  }

  @Test func realTimeSignalsAreNamedFromRTMin() {
    let minimum = Int32(__libc_current_sigrtmin())
    #expect(SignalName.of(minimum) == "SIGRTMIN")
    #expect(SignalName.of(minimum + 2) == "SIGRTMIN+2")
  }
}

/// A small deterministic generator, so that a failure can be replayed.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
