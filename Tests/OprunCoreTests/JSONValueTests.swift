import Foundation
import OprunCore
import Testing

/// The one JSON parser: what it reads, and every way it refuses a text.
@Suite struct JSONValueTests {
  private func parse(_ text: String, limits: JSONLimits = JSONLimits()) -> JSONValue? {
    try? JSONValue.parse(text, limits: limits).get()
  }

  private func error(_ text: String, limits: JSONLimits = JSONLimits()) -> JSONError? {
    if case .failure(let error) = JSONValue.parse(text, limits: limits) { return error }
    return nil
  }

  @Test func scalarsParse() {
    #expect(parse("null") == .null)
    #expect(parse(" true ") == .bool(true))
    #expect(parse("false") == .bool(false))
    #expect(parse("\"a\"") == .string("a"))
    #expect(parse("-0") == .number("-0"))
    #expect(parse("\n\t\r 12 ") == .number("12"))
  }

  @Test func numbersKeepTheirTextAndConvertOnRequest() {
    #expect(parse("1.50") == .number("1.50"))
    #expect(parse("1.50")?.doubleValue == 1.5)
    #expect(parse("-12e+3")?.doubleValue == -12000)
    #expect(parse("2E-2")?.doubleValue == 0.02)
    #expect(parse("123456789012345678901234567890") == .number("123456789012345678901234567890"))
    #expect(parse("42")?.intValue == 42)
    #expect(parse("4.2")?.intValue == nil)
  }

  @Test func objectsKeepMemberOrderAndAnswerLookups() throws {
    let value = try #require(parse(#"{"z": 1, "a": [true, null], "m": {"k": "v"}}"#))
    #expect(value.objectValue?.map(\.key) == ["z", "a", "m"])
    #expect(value["a"] == .array([.bool(true), .null]))
    #expect(value["m"]?["k"]?.stringValue == "v")
    #expect(value["missing"] == nil)
    #expect(parse("{}") == .object([]))
    #expect(parse("[ ]") == .array([]))
  }

  /// Past sixteen members duplicates are found with a set: distinct keys are still taken.
  @Test func aLargeObjectKeepsEveryDistinctKeyAndRefusesARepeatedOne() throws {
    let members = (1...40).map { "\"k\($0)\":\($0)" }
    let object = try #require(parse("{" + members.joined(separator: ",") + "}"))
    #expect(object.objectValue?.count == 40)
    #expect(object["k40"]?.intValue == 40)
    let repeated = error("{" + (members + [#""k17":0"#]).joined(separator: ",") + "}")
    #expect(repeated?.message == "duplicate key 'k17'")
  }

  @Test func escapesAndSurrogatePairsDecode() {
    #expect(parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
    #expect(parse(#""\u00e9\u0041\u0000""#) == .string("éA\u{0}"))
    #expect(parse(#""\ud83d\ude00""#) == .string("😀"))
    #expect(parse(#""\uD834\uDD1E""#) == .string("𝄞"))
    #expect(parse("\"thé 😀\"") == .string("thé 😀"))
  }

  @Test(arguments: [
    ("", "unexpected end of text"),
    ("   ", "unexpected end of text"),
    ("nul", "unexpected character"),
    ("True", "unexpected character"),
    ("{\"a\":1,}", "expected a string key"),
    ("[1,]", "unexpected character"),
    ("[1 2]", "expected ',' or ']'"),
    ("{\"a\" 1}", "expected ':'"),
    ("{a:1}", "expected a string key"),
    ("{\"a\":1", "unexpected end of text"),
    ("[1", "unexpected end of text"),
    ("01", "leading zero in a number"),
    ("-", "expected a digit"),
    ("1.", "expected a digit"),
    (".5", "unexpected character"),
    ("1e", "expected a digit"),
    ("+1", "unexpected character"),
    ("NaN", "unexpected character"),
    ("\"abc", "unterminated string"),
    ("\"a\nb\"", "control character in a string"),
    ("\"\\x\"", "invalid escape"),
    ("\"\\u12\"", "expected four hex digits"),
    ("\"\\ud83d\"", "lone high surrogate"),
    ("\"\\ud83d\\u0041\"", "high surrogate without its low one"),
    ("\"\\ude00\"", "lone low surrogate"),
    ("{\"a\":1,\"a\":2}", "duplicate key 'a'"),
    ("1 2", "unexpected text after the value"),
    ("{} x", "unexpected text after the value"),
    ("// no\n1", "unexpected character"),
  ])
  func malformedTextIsRefusedWithItsReason(_ text: String, _ reason: String) {
    #expect(error(text)?.message == reason, "\(text.debugDescription)")
  }

  @Test func invalidUTF8InAStringIsRefused() {
    for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
      guard case .failure(let error) = JSONValue.parse(bytes) else {
        Issue.record("\(bytes) parsed")
        continue
      }
      #expect(error.message == "invalid UTF-8 in a string")
    }
    // Outside strings only ASCII is grammar.
    #expect((try? JSONValue.parse([0xEF, 0xBB, 0xBF, 0x31]).get()) == nil)
  }

  @Test func depthAndLengthAreBounded() {
    let limits = JSONLimits(maximumLength: 100, maximumDepth: 3)
    #expect(parse("[[[1]]]", limits: limits) != nil)
    #expect(error("[[[[1]]]]", limits: limits)?.message == "nested deeper than 3")
    #expect(error(#"{"a":{"b":{"c":{}}}}"#, limits: limits)?.message == "nested deeper than 3")
    #expect(error(String(repeating: " ", count: 101) + "1", limits: limits)?.message == "longer than 100 bytes")
    // The default depth keeps a hostile nesting from exhausting the stack.
    #expect(error(String(repeating: "[", count: 100_000))?.message == "nested deeper than 64")
  }

  @Test func errorsSayWhere() {
    #expect(error("[1, x]")?.offset == 4)
    #expect(error(#"{"a":1,"a":2}"#)?.description == "duplicate key 'a' at byte 7")
  }

  /// Random bytes, and random cuts and flips of valid texts, never crash the parser, and
  /// whatever it accepts Foundation accepts too, with the same contents.
  @Test func randomAndDamagedInputIsAnsweredAndAgreesWithFoundation() throws {
    var generator = SystemRandomNumberGenerator()
    let seeds = [
      #"{"command":"cancel","args":["a","b\u00e9"],"n":[1,-2.5e3,true,false,null,{"x":{}}]}"#,
      #"[{"t":0.25,"event":"transition","job":"a\"b","pids":[12,13]},"😀\ud83d\ude00"]"#,
    ]
    for round in 0..<4000 {
      var bytes: [UInt8]
      if round % 4 == 0 {
        bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
        }
      } else {
        bytes = Array(seeds[round % 2].utf8)
        if round % 4 == 1 { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) }
        if round % 4 >= 2 {
          bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
        }
      }
      let ours = try? JSONValue.parse(bytes).get()
      let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
      if let ours {
        let theirs = try #require(theirs, "Foundation refused what we accepted: \(bytes)")
        #expect(Self.same(ours, theirs), "\(String(decoding: bytes, as: UTF8.self))")
      }
    }
  }

  private static func same(_ value: JSONValue, _ other: Any) -> Bool {
    switch value {
    case .null: return other is NSNull
    case .bool(let flag): return (other as? NSNumber).map { $0 == NSNumber(value: flag) } ?? false
    case .number(let text): return (other as? NSNumber)?.doubleValue == Double(text)
    case .string(let text): return other as? String == text
    case .array(let elements):
      guard let others = other as? [Any], others.count == elements.count else { return false }
      return zip(elements, others).allSatisfy { same($0, $1) }
    case .object(let members):
      guard let others = other as? [String: Any], others.count == members.count else { return false }
      return members.allSatisfy { member in others[member.key].map { same(member.value, $0) } ?? false }
    }
  }
}
