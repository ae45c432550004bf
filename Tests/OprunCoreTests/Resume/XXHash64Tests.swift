import OprunCore
import Testing

/// XXH64 against the reference implementation's values (libxxhash 0.8.1 gives the same).
@Suite struct XXHash64Tests {
  @Test(
    arguments: [
      ("", 0xef46_db37_51d8_e999),
      ("a", 0xd24e_c4f1_a98c_6e5b),
      ("abc", 0x44bc_2cf5_ad77_0999),
      ("Nobody inspects the spammish repetition", 0xfbce_a83c_8a37_8bf1),
      (String(repeating: "x", count: 37), 0x1e58_0c47_5bdc_5381),
    ] as [(String, UInt64)])
  func textsHashToTheReferenceValues(text: String, expected: UInt64) {
    #expect(XXHash64.hash(text) == expected)
    #expect(XXHash64.hash(Array(text.utf8)) == expected)
  }

  @Test func theBytesZeroToNinetyNineHashToTheReferenceValue() {
    #expect(XXHash64.hash((0..<100).map { UInt8($0) }) == 0x6ac1_e580_3216_6597)
  }

  /// Lengths that end in each tail: single bytes, a 4-byte word, 8-byte words, and the
  /// 32-byte stripes with and without a tail.
  @Test(
    arguments: [
      (3, 0x56e6_9576_32a4_87f9), (4, 0xc60d_15b1_e3ff_8f04), (7, 0xafbe_fc3d_6c6f_9a8e),
      (8, 0x3da5_c7aa_2696_83e0), (12, 0x8fe8_ab1c_1fd0_666e), (31, 0x4a74_f3a1_a39a_d4a1),
      (32, 0x8d57_d6a4_671c_c43d), (33, 0x62c9_fd21_ed85_7664), (63, 0x5c32_0a0d_2707_057f),
      (64, 0x7bba_bbc4_5729_d17e),
    ] as [(Int, UInt64)])
  func everyTailPathHashesToTheReferenceValue(length: Int, expected: UInt64) {
    #expect(XXHash64.hash(Array(Self.buffer.prefix(length))) == expected)
  }

  @Test func aSeedChangesTheHashAsTheReferenceDoes() {
    #expect(XXHash64.hash("abc", seed: 0x9E37_79B1_85EB_CA87) == 0xa7cb_2aac_405e_36c7)
    #expect(XXHash64.hash((0..<100).map { UInt8($0) }, seed: 1) == 0x3d19_a3a2_098a_7023)
    #expect(XXHash64.hash("abc", seed: 1) != XXHash64.hash("abc"))
  }

  @Test func everyPrefixOfABufferUpToSixtyFourBytesHashesDifferently() {
    let hashes = (0...64).map { XXHash64.hash(Array(Self.buffer.prefix($0))) }
    #expect(Set(hashes).count == 65)
  }

  @Test func theStringAndByteOverloadsAgree() {
    let texts = [
      "", "a", "oprun", "héllo wörld", "日本語のテキスト", "emoji 🧪🚀", String(repeating: "ab", count: 40),
      "line\nwith\0nul",
    ]
    for text in texts {
      #expect(XXHash64.hash(text) == XXHash64.hash(Array(text.utf8)), "\(text)")
      #expect(XXHash64.hash(text, seed: 42) == XXHash64.hash(Array(text.utf8), seed: 42), "\(text)")
    }
  }

  /// 64 bytes that are neither zero nor a simple count: (i·31 + 7) mod 256.
  private static let buffer: [UInt8] = (0..<64).map { UInt8(($0 * 31 + 7) & 0xff) }
}
