import PropertyBased
import Testing

@testable import OprunCore

/// A kept listing of inputs read back, and the input it names as changed, compared in place.
@Suite struct FileListingTests {
  private func file(_ path: String, _ digit: Character, kind: FileKind = .file) -> FileRecord {
    FileRecord(path: path, kind: kind, digest: kind == .fifo ? "" : String(repeating: digit, count: 64))
  }

  @Test func aListingReadBackHoldsTheSameFilesWhateverBytesTheirPathsHold() throws {
    let files = [
      file("a b/c d.c", "1"), file("line\nbreak", "2"), file("pipe", "0", kind: .fifo), file("é/ü", "3", kind: .link),
      file("/usr/include/stdio.h", "4"), file("x y z", "5", kind: .unreadable),
    ]
    let listing = FileListing(files)
    let readBack = try #require(FileListing(bytes: listing.bytes))
    #expect(readBack.records == files)
    #expect(readBack == listing)
    #expect(String(decoding: listing.bytes.prefix(6), as: UTF8.self) == "file 1")
  }

  @Test(arguments: ["bogus \(String(repeating: "1", count: 64)) a\0", "file\0", "file 11\0", "\0\0file"])
  func aDamagedListingIsNotRead(text: String) {
    #expect(FileListing(bytes: Array(text.utf8)) == nil)
  }

  @Test func anEmptyListingHoldsNoFile() throws {
    #expect(try #require(FileListing(bytes: [])).records.isEmpty)
  }

  @Test func theFirstDifferenceNamesThePathInByteOrderAndCountsEvery() {
    let old = [file("a", "1"), file("b", "1"), file("c", "1"), file("d", "1")]
    let new = [file("a", "1"), file("b", "2"), file("b0", "1"), file("d", "1")]
    let expected = FileDifference(change: .changed, path: "b", count: 3)
    #expect(FileDifference.between(old: FileListing(old), new: new) == expected)
    #expect(FileDifference.between(old: old, new: new) == expected)
    #expect(FileDifference.between(old: FileListing(old), new: old) == nil)
    #expect(
      FileDifference.between(old: FileListing([file("a", "1")]), new: [file("a", "1", kind: .link)])
        == FileDifference(change: .changed, path: "a", count: 1))
  }

  @Test func aListingAndItsRecordsDifferAlikeFromAnyOtherFiles() async {
    let paths = ["a", "a b", "a-", "a.c", "a/b", "a0", "b", "é", "/abs", "z/z/z"]
    let record = zip(Gen.int(in: 0...(paths.count - 1)), Gen.int(in: 0...3), Gen.int(in: 0...(FileKind.allCases.count - 1)))
      .map { path, digit, kind in
        FileRecord(path: paths[path], kind: FileKind.allCases[kind], digest: String(repeating: String(digit), count: 64))
      }
    let listing = record.array(of: 0...8).map { Self.sortedUnique($0) }
    await propertyCheck(input: listing, listing) { old, new in
      #expect(FileDifference.between(old: FileListing(old), new: new) == FileDifference.between(old: old, new: new))
    }
  }

  private static func sortedUnique(_ records: [FileRecord]) -> [FileRecord] {
    var seen = Set<String>()
    return records.filter { seen.insert($0.path).inserted }.sorted { ByteOrder.precedes($0.path, $1.path) }
  }
}
