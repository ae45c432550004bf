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
    let readBack = FileListing(bytes: listing.bytes)
    #expect(readBack.records == files)
    #expect(readBack == listing)
    #expect(readBack.entryStarts == listing.entryStarts)
    #expect(Array(listing.bytes.prefix(16)) == Array("a b/c d.c\0file\0".utf8) + [UInt8(ascii: "1")])
  }

  @Test(arguments: ["a\0bogus\0\(String(repeating: "1", count: 64))\0", "a\0file\0", "a\0file", "a"])
  func aDamagedListingHoldsNoRecordsAndNamesNothing(text: String) {
    let damaged = FileListing(bytes: Array(text.utf8))
    #expect(damaged.records == nil)
    #expect(FileDifference.between(old: damaged, new: FileListing([file("a", "1")])) == nil)
  }

  @Test func anEmptyListingHoldsNoFile() {
    #expect(FileListing(bytes: []).records == [])
  }

  @Test func theFirstDifferenceNamesThePathInByteOrderAndCountsEvery() {
    let old = [file("a", "1"), file("b", "1"), file("c", "1"), file("d", "1")]
    let new = [file("a", "1"), file("b", "2"), file("b0", "1"), file("d", "1")]
    #expect(FileDifference.between(old: old, new: new) == FileDifference(change: .changed, path: "b", count: 3))
    #expect(FileDifference.between(old: FileListing(bytes: FileListing(old).bytes), new: FileListing(old)) == nil)
    #expect(
      FileDifference.between(old: [file("a", "1")], new: [file("a", "1", kind: .link)])
        == FileDifference(change: .changed, path: "a", count: 1))
    #expect(
      FileDifference.between(old: [file("a", "1"), file("a0", "1")], new: [file("a", "1")])
        == FileDifference(change: .removed, path: "a0", count: 1), "the new listing is a prefix of the old")
    #expect(
      FileDifference.between(old: [file("a", "1")], new: [file("a", "1"), file("a0", "1")])
        == FileDifference(change: .added, path: "a0", count: 1), "the old listing is a prefix of the new")
  }

  @Test func oneChangedFileAmongThousandsIsFoundWherePathsShareLongPrefixes() {
    let old = (0..<3000).map { file("data/deep/folder/\(1000 + $0).dat", "a") }
    var new = old
    new[1234].digest = String(repeating: "b", count: 64)
    new.insert(file("data/deep/folder/2500.dat0", "c"), at: 1501)
    new.remove(at: 2999)
    #expect(
      FileDifference.between(old: FileListing(bytes: FileListing(old).bytes), new: FileListing(new))
        == FileDifference(change: .changed, path: "data/deep/folder/2234.dat", count: 3))
  }

  @Test func aListingReadBackDiffersFromAnyOtherFilesAsTheirRecordsDo() async {
    let paths = ["a", "a b", "a-", "a.c", "a/b", "a0", "b", "é", "/abs", "z/z/z", "a\u{7f}"]
    let record = zip(Gen.int(in: 0...(paths.count - 1)), Gen.int(in: 0...3), Gen.int(in: 0...(FileKind.allCases.count - 1)))
      .map { path, digit, kind in
        FileRecord(path: paths[path], kind: FileKind.allCases[kind], digest: String(repeating: String(digit), count: 64))
      }
    let listing = record.array(of: 0...12).map { Self.sortedUnique($0) }
    await propertyCheck(input: listing, listing) { old, new in
      #expect(
        FileDifference.between(old: FileListing(bytes: FileListing(old).bytes), new: FileListing(new))
          == Self.modelDifference(old: old, new: new))
    }
  }

  private static func sortedUnique(_ records: [FileRecord]) -> [FileRecord] {
    var seen = Set<String>()
    return records.filter { seen.insert($0.path).inserted }.sorted { ByteOrder.precedes($0.path, $1.path) }
  }

  /// Both listings walked in step, record by record: what the byte comparison must agree with.
  private static func modelDifference(old: [FileRecord], new: [FileRecord]) -> FileDifference? {
    var changes: [(FileDifference.Change, String)] = []
    var (i, j) = (0, 0)
    while i < old.count || j < new.count {
      if j == new.count || (i < old.count && ByteOrder.precedes(old[i].path, new[j].path)) {
        changes.append((.removed, old[i].path))
        i += 1
      } else if i == old.count || ByteOrder.precedes(new[j].path, old[i].path) {
        changes.append((.added, new[j].path))
        j += 1
      } else {
        if old[i] != new[j] { changes.append((.changed, new[j].path)) }
        i += 1
        j += 1
      }
    }
    return changes.first.map { FileDifference(change: $0.0, path: $0.1, count: changes.count) }
  }
}
