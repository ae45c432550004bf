import OprunCore
import Testing

@testable import OprunRuntime

/// The cache entry's format (SPEC §14, man page CACHE ENTRY): what is encoded decodes to the
/// same entry, and bytes that could make a restore write where it must not are refused.
@Suite struct CacheEntryTests {
  static let digest = String(repeating: "ab", count: 32)

  static let entry = CacheEntry(
    files: [
      CacheEntry.File(path: "build/app", mode: 0o755, size: 12, sha256: digest),
      CacheEntry.File(path: "with space/\"quoted\"\nname", mode: 0o600, size: 0, sha256: digest),
    ],
    printed: [
      CacheEntry.Printed(stream: .stdout, text: Array("compiled\n".utf8)),
      CacheEntry.Printed(stream: .stderr, text: Array("warning: x\n".utf8)),
    ],
    printedLeftOut: 3, duration: 12.25)

  @Test func anEncodedEntryDecodesToItself() throws {
    let decoded = try CacheEntry.decode(Self.entry.encoded()).get()
    #expect(decoded == Self.entry)
    #expect(decoded.bytes == 12)
  }

  @Test func theEncodingNamesItsFormatAndVersion() {
    let text = String(decoding: Self.entry.encoded(), as: UTF8.self)
    #expect(text.hasPrefix(#"{"format":"oprun-cache-entry","version":1,"#))
  }

  static func entry(path: String = "out", mode: Int = 0o644, digest: String = digest, version: Int = 1) -> String {
    #"{"format":"oprun-cache-entry","version":\#(version),"duration":1,"files":[{"path":"\#(path)","mode":\#(mode),"size":1,"sha256":"\#(digest)"}]}"#
  }

  @Test(arguments: ["../evil", "/tmp/evil", "a/../../evil", "a//b", "./a", "", "a/./b", "a/.."])
  func aPathThatCouldLeaveTheFolderIsRefused(path: String) {
    #expect(throws: CacheEntryError.self) { try CacheEntry.decode(Array(Self.entry(path: path).utf8)).get() }
  }

  @Test func aDigestThatIsNoSHA256IsRefused() {
    for digest in ["abc", String(repeating: "AB", count: 32), "../" + String(repeating: "a", count: 61)] {
      #expect(throws: CacheEntryError.self) { try CacheEntry.decode(Array(Self.entry(digest: digest).utf8)).get() }
    }
  }

  @Test func aModeBeyondPermissionBitsOrAnotherVersionIsRefused() {
    #expect(throws: CacheEntryError.self) { try CacheEntry.decode(Array(Self.entry(mode: 0o100644).utf8)).get() }
    #expect(throws: CacheEntryError.self) { try CacheEntry.decode(Array(Self.entry(version: 2).utf8)).get() }
    #expect(throws: CacheEntryError.self) { try CacheEntry.decode(Array("not json".utf8)).get() }
  }

  @Test func whatAJobPrintsIsKeptUpToTheLimitThenCounted() {
    var printed = PrintedOutput()
    let line = [UInt8](repeating: UInt8(ascii: "x"), count: 1023) + [UInt8(ascii: "\n")]
    for _ in 0..<(CacheEntry.printedLimit / 1024 + 5) { printed.append(line, stream: .stdout) }
    #expect(printed.bytes == CacheEntry.printedLimit)
    #expect(printed.linesLeftOut == 5)
  }
}
