import PropertyBased
import Testing

@testable import OprunCore

@Suite struct SecretMaskingTests {
  private func masked(_ text: String, _ secrets: [String], chunks: [Int]? = nil) -> String {
    let patterns = SecretPatterns(values: secrets)!
    var stream = SecretMaskingStream(patterns)
    var output: [UInt8] = []
    let bytes = Array(text.utf8)
    var start = 0
    for size in chunks ?? [bytes.count] {
      let end = min(start + size, bytes.count)
      stream.mask(bytes[start..<end]) { output += $0 }
      start = end
    }
    stream.mask(bytes[start...]) { output += $0 }
    stream.finish { output += $0 }
    return String(decoding: output, as: UTF8.self)
  }

  @Test func aSecretIsReplacedWhereverItIs() {
    #expect(masked("token=hunter2 and hunter2\n", ["hunter2"]) == "token=*** and ***\n")
  }

  @Test func aSecretWrittenOneByteAtATimeIsMasked() {
    let text = "the key is s3cr3t-value, twice: s3cr3t-value\n"
    #expect(masked(text, ["s3cr3t-value"], chunks: Array(repeating: 1, count: text.utf8.count))
      == "the key is ***, twice: ***\n")
  }

  @Test func valuesShorterThanFourBytesAreLeftAlone() {
    #expect(SecretPatterns(values: ["abc", ""]) == nil)
    #expect(masked("abc abcd\n", ["abc", "abcd"]) == "abc ***\n")
  }

  @Test func overlappingSecretsBecomeOneMask() {
    #expect(masked("xxabcdefxx\n", ["abcd", "cdef"]) == "xx***xx\n")
    #expect(masked("aaaaaaaaaa\n", ["aaaa"]) == "***\n")
  }

  @Test func aMultiLineSecretIsMaskedLineByLine() {
    #expect(masked("-----\nline-one\nline-two\n", ["line-one\nline-two"]) == "-----\n***\n***\n")
  }

  @Test func aPrefixOfASecretIsHeldOnlyUntilItCannotBeOne() {
    let patterns = SecretPatterns(values: ["password"])!
    var stream = SecretMaskingStream(patterns)
    var output: [UInt8] = []
    stream.mask(Array("my pass".utf8)[...]) { output += $0 }
    #expect(String(decoding: output, as: UTF8.self) == "my ")
    stream.mask(Array("port\n".utf8)[...]) { output += $0 }
    #expect(String(decoding: output, as: UTF8.self) == "my passport\n")
  }

  @Test func aLineEndIsNeverHeldBack() {
    let patterns = SecretPatterns(values: ["abcdefgh"])!
    var stream = SecretMaskingStream(patterns)
    var output: [UInt8] = []
    stream.mask(Array("abcd\nabc".utf8)[...]) { output += $0 }
    #expect(String(decoding: output, as: UTF8.self) == "abcd\n")
  }

  @Test func maskingAStringMasksTheWholeOfIt() {
    #expect(SecretPatterns(values: ["hunter2"])!.masked("echo hunter") == "echo hunter")
    #expect(SecretPatterns(values: ["hunter2"])!.masked("echo hunter2") == "echo ***")
  }

  /// However the stream is cut into reads, what comes out is the whole text masked at once
  /// (by a plain reference: every byte inside an occurrence of a secret, each run as `***`),
  /// and a read that ends a line has passed the line on.
  @Test func anyCuttingOfTheStreamMasksAsTheWholeText() async {
    await propertyCheck(count: 300, input: Gen.uint64(in: 0 ... .max)) { seed in
      var random = SeededGenerator(seed: seed)
      let alphabet = Array("ab\nc".utf8)
      let secrets = (0..<Int.random(in: 1...4, using: &random)).map { _ in
        String(decoding: (0..<Int.random(in: 4...7, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.filter { $0 != 0x0A }, as: UTF8.self)
      }.filter { $0.utf8.count >= 4 }
      guard let patterns = SecretPatterns(values: secrets) else { return }
      var text: [UInt8] = []
      while text.count < 200 {
        if Int.random(in: 0..<4, using: &random) == 0 {
          text += Array(secrets.randomElement(using: &random)!.utf8)
        } else {
          text.append(alphabet.randomElement(using: &random)!)
        }
      }
      var stream = SecretMaskingStream(patterns)
      var output: [UInt8] = []
      var start = 0
      while start < text.count {
        let end = min(text.count, start + Int.random(in: 1...9, using: &random))
        stream.mask(text[start..<end]) { output += $0 }
        if text[end - 1] == 0x0A {
          #expect(output.last == 0x0A, "a line end was held back")
        }
        start = end
      }
      stream.finish { output += $0 }
      #expect(output == Self.reference(text, secrets: secrets), "secrets \(secrets)")
    }
  }

  private static func reference(_ text: [UInt8], secrets: [String]) -> [UInt8] {
    var masked = [Bool](repeating: false, count: text.count + 1)
    for secret in secrets.map({ Array($0.utf8) }) where secret.count >= 4 {
      for start in 0..<max(0, text.count - secret.count + 1) where Array(text[start..<start + secret.count]) == secret {
        for index in start..<start + secret.count { masked[index] = true }
      }
    }
    var output: [UInt8] = []
    var index = 0
    while index < text.count {
      if masked[index] {
        output += SecretPatterns.replacement
        while index < text.count, masked[index] { index += 1 }
      } else {
        output.append(text[index])
        index += 1
      }
    }
    return output
  }
}
