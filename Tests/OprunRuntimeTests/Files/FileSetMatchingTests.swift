import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Which files `inputs` and `outputs` patterns take (SPEC §10).
@Suite struct FileSetMatchingTests {
  @Test func wildcardsMatchWithinAComponentAsGlobDoes() throws {
    let tree = try FileTree()
    for name in ["a.c", "b.c", "ab.c", ".hidden.c", "c.h", "]", "x.txt"] { tree.write(name) }
    #expect(try tree.paths(["*.c"]) == [".hidden.c", "a.c", "ab.c", "b.c"], "`*` matches a leading dot")
    #expect(try tree.paths(["?.c"]) == ["a.c", "b.c"])
    #expect(try tree.paths(["[ab].c"]) == ["a.c", "b.c"])
    #expect(try tree.paths(["[!a].c"]) == ["b.c"])
    #expect(try tree.paths(["[a-c].h"]) == ["c.h"])
    #expect(try tree.paths(["[]]"]) == ["]"])
    #expect(try tree.paths(["?"]) == ["]"], "`?` is one character")
  }

  @Test func theLastMatchingPatternDecidesBeyondTheSixtyFourthToo() throws {
    let tree = try FileTree()
    for name in ["src/a.c", "src/b.c", "src/c.c", "src/d.h", "out/x.o"] { tree.write(name) }
    let filler = (0..<70).map { "nothing\($0)" }
    #expect(try tree.paths(filler + ["src/", "!src/b.c"]) == ["src/a.c", "src/c.c", "src/d.h"])
    #expect(try tree.paths(["src/"] + filler + ["!src/*.c", "src/c.c"]) == ["src/c.c", "src/d.h"])
    #expect(try tree.paths(Array(filler.prefix(62)) + ["src/", "!src/a.c", "src/a.c"]) == ["src/a.c", "src/b.c", "src/c.c", "src/d.h"])
    #expect(try tree.paths(["src/", "out/"], excluded: filler + ["src/d.h", "out/"]) == ["src/a.c", "src/b.c", "src/c.c"])
    let unmatched = try tree.snapshot(filler + ["src/a.c"]).unmatchedPatterns
    #expect(unmatched == Array(0..<70), "each of the 70 that match nothing is named")
  }

  @Test func wildcardsDoNotCrossSlashes() throws {
    let tree = try FileTree()
    tree.write("src/a.c")
    tree.write("src/deep/b.c")
    #expect(try tree.paths(["src/*.c"]) == ["src/a.c"])
    #expect(try tree.paths(["*/*.c"]) == ["src/a.c"])
    #expect(try tree.paths(["*.c"]) == [])
  }

  @Test func doubleStarMatchesAnyNumberOfComponentsNoneIncluded() throws {
    let tree = try FileTree()
    for name in ["top.c", "src/a.c", "src/x/y/b.c", "src/x/y/b.h", "other/c.c"] { tree.write(name) }
    #expect(try tree.paths(["src/**/*.c"]) == ["src/a.c", "src/x/y/b.c"], "zero components and many")
    #expect(try tree.paths(["**/*.c"]) == ["other/c.c", "src/a.c", "src/x/y/b.c", "top.c"], "at the start")
    #expect(try tree.paths(["src/**"]) == ["src/a.c", "src/x/y/b.c", "src/x/y/b.h"], "at the end")
    #expect(try tree.paths(["**/y/*.h"]) == ["src/x/y/b.h"])
    #expect(try tree.paths(["src/**/x/**/b.c"]) == ["src/x/y/b.c"], "twice")
  }

  @Test func aPathNamingAFolderStandsForEveryFileUnderIt() throws {
    let tree = try FileTree()
    for name in ["include/a.h", "include/sys/b.h", "src/sub/deep.c", "notes"] { tree.write(name) }
    #expect(try tree.paths(["include/"]) == ["include/a.h", "include/sys/b.h"])
    #expect(try tree.paths(["include"]) == ["include/a.h", "include/sys/b.h"])
    #expect(try tree.paths(["src/*"]) == ["src/sub/deep.c"], "a folder a wildcard matches, too")
    #expect(try tree.paths(["notes/"]) == [], "a trailing slash asks for a folder")
    #expect(try tree.paths(["notes"]) == ["notes"])
    #expect(try tree.paths(["."]) == ["include/a.h", "include/sys/b.h", "notes", "src/sub/deep.c"])
  }

  @Test func filesComeInTheByteOrderOfTheirPathsWhereverTheyWereFound() throws {
    let tree = try FileTree()
    // '-' and '.' sort before '/', '0' after it: a folder's files fall between its neighbours.
    let names = ["x-", "x.c", "x/a", "x/b/c", "x0", "x/b.c", "y", "x/b-/d", "X"]
    for name in names { tree.write(name) }
    let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    #expect(try tree.paths(["."]) == sorted)
    #expect(try tree.paths(["x/b/", "x0", "x/", "*"]) == sorted, "several starts, one order, each file once")
  }

  @Test func aWideTreeIsWalkedWhole() throws {
    let tree = try FileTree()
    var names: [String] = []
    // More files than the hashing threads take a slice of at a time.
    for folder in 0..<60 {
      for file in 0..<25 { names.append("d\(folder)/s\(file % 3)/f\(file)") }
    }
    for name in names { tree.write(name) }
    let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    let snapshot = try tree.snapshot(["."])
    #expect(snapshot.files.map(\.path) == sorted)
    let serial = FileSnapshot(files: snapshot.files, unmatchedPatterns: [])
    #expect(snapshot.digest == serial.digest)
    #expect(snapshot.listing == serial.listing)
    #expect(snapshot.listing.entryStarts == FileListing(bytes: serial.listing.bytes).entryStarts, "laid out in slices, the entries start where a reading finds them")
    let matching = sorted.filter { path in
      let parts = path.split(separator: "/")
      return parts[0].hasPrefix("d1") && parts[2].hasPrefix("f1") && parts[2].count == 3
    }
    #expect(try tree.paths(["d1*/**/f1?"]) == matching)
  }

  @Test func aPatternStartingInsideAnothersWalkIsMatchedOnTheWay() throws {
    let tree = try FileTree()
    for name in ["a.c", "include/x.h", "include/sys/y.h", "src/b.c"] { tree.write(name) }
    #expect(try tree.paths(["**/*.c", "include/"]) == ["a.c", "include/sys/y.h", "include/x.h", "src/b.c"])
    #expect(try tree.paths(["src/", "src/b.c", "**/*.h"]) == ["include/sys/y.h", "include/x.h", "src/b.c"])
    #expect(try tree.paths(["**/*.c", "!src/"]) == ["a.c"])
  }

  @Test func anExclusionRemovesOnlyWhatThePatternsBeforeItMatched() throws {
    let tree = try FileTree()
    for name in ["src/a.c", "src/a_test.c", "src/gen/b.c", "src/gen/keep.c"] { tree.write(name) }
    #expect(try tree.paths(["src/**/*.c", "!src/**/*_test.c"]) == ["src/a.c", "src/gen/b.c", "src/gen/keep.c"])
    #expect(
      try tree.paths(["!src/**/*_test.c", "src/**/*.c"]) == [
        "src/a.c", "src/a_test.c", "src/gen/b.c", "src/gen/keep.c",
      ],
      "an exclusion first removes nothing")
    #expect(try tree.paths(["src/", "!src/gen/", "src/gen/keep.c"]) == ["src/a.c", "src/a_test.c", "src/gen/keep.c"])
  }

  @Test func aJobsOwnOutputsAreNotItsInputs() throws {
    let tree = try FileTree()
    for name in ["main.c", "app", "out/log.txt", "out/sub/x"] { tree.write(name) }
    #expect(try tree.paths(["**"], excluded: ["app", "out/"]) == ["main.c"])
  }

  @Test func pathsOutsideTheManifestFolderAreRecordedAbsolute() throws {
    let tree = try FileTree()
    tree.write("shared/x.h")
    tree.write("project/sub/a.c")
    tree.write("project/b.c")
    let request = FileSetRequest(
      folder: tree.path("project/sub"), manifestFolder: tree.path("project"),
      patterns: try ["a.c", "../b.c", "../../shared/*.h", tree.path("shared/x.h")].map {
        try PathPattern.parse($0).get()
      })
    let paths = FileHasher(cacheFolder: nil).snapshot(request).files.map(\.path)
    #expect(paths == ["b.c", "sub/a.c", tree.path("shared/x.h")].sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
  }

  @Test func theManifestsPrivateFolderIsNeverMatched() throws {
    let tree = try FileTree()
    tree.write(".oprun/hashes", "x")
    tree.write(".oprun/run.ndjson", "x")
    tree.write("sub/.oprun/kept", "a job's own folder of that name is not oprun's")
    tree.write("a.c")
    #expect(try tree.paths(["**"]) == ["a.c", "sub/.oprun/kept"])
    #expect(try tree.paths(["*"]) == ["a.c", "sub/.oprun/kept"])
    #expect(try tree.paths([".oprun/", ".oprun/hashes"]) == [])
  }

  @Test func patternsThatMatchNothingAreReported() throws {
    let tree = try FileTree()
    tree.write("a.c")
    tree.makeFolder("empty")
    let snapshot = try tree.snapshot(["missing.c", "empty/", "*.none", "!whatever", "a.c", "empty/**"])
    #expect(snapshot.unmatchedPatterns == [0, 1, 2, 5], "an empty folder matches nothing; exclusions are not counted")
    #expect(snapshot.files.map(\.path) == ["a.c"])
  }

  @Test func aWalkRecordsLinksWithoutFollowingThem() throws {
    let tree = try FileTree()
    tree.write("real/f.txt", "content")
    tree.link("real/loop", to: ".")
    tree.link("real/a", to: "b")
    tree.link("real/b", to: "a")
    tree.link("real/alias", to: "f.txt")
    let snapshot = try tree.snapshot(["real/**"])
    #expect(snapshot.files.map(\.path) == ["real/a", "real/alias", "real/b", "real/f.txt", "real/loop"])
    #expect(snapshot.files.map(\.kind) == [.link, .link, .link, .file, .link])
    #expect(snapshot.files[1].digest == sha256("f.txt"), "a link's content is its target's text")
    #expect(snapshot.files[4].digest == sha256("."))
  }

  /// Followed to where it leads, and recorded there when that is under the manifest's
  /// folder: one file, one path, however it is named.
  @Test func aLinkNamedDirectlyIsFollowed() throws {
    let tree = try FileTree()
    tree.write("real/f.txt", "content")
    tree.link("file-alias", to: "real/f.txt")
    tree.link("folder-alias", to: "real")
    let file = try tree.snapshot(["file-alias"])
    #expect(file.files == [FileRecord(path: "real/f.txt", kind: .file, digest: sha256("content"))])
    #expect(try tree.paths(["folder-alias"]) == ["real/f.txt"])
    #expect(try tree.paths(["folder-alias/*.txt"]) == ["real/f.txt"])
    #expect(try tree.paths(["folder-alias", "real"]) == ["real/f.txt"])
  }

  @Test func fifosAndDevicesAreRecordedByKindAndNeverOpened() throws {
    let tree = try FileTree()
    tree.fifo("pipe")
    tree.write("plain", "x")
    let hasher = FileHasher(cacheFolder: nil)
    let snapshot = try tree.snapshot(["**", "/dev/zero"], hasher: hasher)
    #expect(
      snapshot.files == [
        FileRecord(path: "/dev/zero", kind: .device, digest: ""),
        FileRecord(path: "pipe", kind: .fifo, digest: ""),
        FileRecord(path: "plain", kind: .file, digest: sha256("x")),
      ])
    #expect(hasher.contentRead == .init(files: 1, bytes: 1))
  }

  @Test func aFileThatBecameALinkIsUnreadableNotFollowed() throws {
    let tree = try FileTree()
    tree.write("target", "x")
    tree.link("link", to: "target")
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
    defer { buffer.deallocate() }
    let reading = ContentDigest.readFile(tree.path("link"), followingLink: false, startedAt: .now(), buffer: buffer)
    #expect(reading.kind == .unreadable && reading.digest == "" && reading.bytesRead == 0)
  }

  @Test(.enabled(if: geteuid() != 0, "root reads every file"))
  func anUnreadableFileIsRecordedAsSuch() throws {
    let tree = try FileTree()
    tree.write("secret", "x")
    chmod(tree.path("secret"), 0)
    #expect(try tree.snapshot(["secret"]).files == [FileRecord(path: "secret", kind: .unreadable, digest: "")])
  }

  @Test func theSnapshotDigestChangesWithAnyPathOrContent() throws {
    let tree = try FileTree()
    tree.write("a", "1")
    let first = try tree.snapshot(["*"]).digest
    #expect(try tree.snapshot(["*"]).digest == first)
    tree.write("a", "2")
    let edited = try tree.snapshot(["*"]).digest
    #expect(edited != first)
    rename(tree.path("a"), tree.path("b"))
    #expect(try tree.snapshot(["*"]).digest != edited, "renamed")
    #expect(FileSnapshot(files: [], unmatchedPatterns: []).digest == sha256(""))
  }
}
