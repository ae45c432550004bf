import Testing

@testable import OprunRuntime

/// A file's digest is its SHA-256, the same whether its bytes come at once or in pieces of any size.
@Suite struct ContentDigestTests {
  /// The examples of FIPS 180-4.
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
  ])
  func theDigestIsTheStandardsSHA256(text: String, digest: String) {
    #expect(ContentDigest.of(Array(text.utf8)) == digest)
  }

  @Test func oneMillionAs() {
    let digest = ContentDigest.of([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
    #expect(digest == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  /// Python's `hashlib.sha256` of the bytes below of these lengths.
  static let digestsOfLengths = [
    119: "3d610547d68216dedf7435a4fb6260353911f6b3fd3f18805ddb8be285d726fe",
    1000: "5097e7d587352f5097062ae679f37bda5802d9f875aba14c8cb4d1a188ada179",
  ]

  /// Lengths around a block's 64 bytes and its last 8 (where the padding spills into another
  /// block), each fed whole and in pieces that straddle the blocks.
  @Test func piecesGiveTheDigestOfTheWhole() {
    for length in [55, 56, 63, 64, 65, 119, 120, 127, 128, 1000] {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
      let whole = ContentDigest.of(bytes)
      if let known = Self.digestsOfLengths[length] { #expect(whole == known, "\(length) bytes") }
      for pieceSize in [1, 3, 63, 64, 65] {
        var hasher = SHA256()
        var start = 0
        while start < length {
          let end = min(length, start + pieceSize)
          bytes[start..<end].withUnsafeBytes { hasher.update(bufferPointer: $0) }
          start = end
        }
        #expect(ContentDigest.hex(hasher.finalize()) == whole, "\(length) bytes in pieces of \(pieceSize)")
      }
    }
  }
}
