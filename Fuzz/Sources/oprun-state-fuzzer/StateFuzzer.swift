import Glibc
import OprunCore
import OprunRuntime

/// One input: the fuzzer's bytes as the files of a manifest's `.oprun/` — journals in
/// `runs/` or the hash cache — read by what reads them for a user: `oprun -n` and `oprun log`.
/// The manifest is jobs/incremental.yaml with its sources, copied once into a folder of this
/// process's own; `.oprun/` is made again for each input.
///
/// The first byte says what the rest is, by its value modulo 4:
/// - 0: one journal;
/// - 1: journals separated by lines holding only U+001E, numbered in that order;
/// - 2: the hash cache, as it is;
/// - 3: the hash cache with each block's check made right, so that what is inside the
///   blocks is read, not only the checks (bytes cannot guess an XXH64).
///
/// and, for journals, which readers read them, by its value divided by 4, modulo 6: `oprun -n`
/// plain, with `--resume` or with `--schedule critical-path` (each a different reader of the
/// journals), then `oprun log` and `oprun log RUN-ID` of each journal, as text or as JSON.
/// One input takes a few milliseconds of readers, so each takes one choice of them.
///
/// Besides what the sanitizers catch, it checks what a user relies on: no state file makes
/// `-n` or `oprun log` fail, and after `-n` has saved the hash cache, a new reader of that
/// cache vouches for every source file with its true digest, whatever the cache held before.
@_cdecl("LLVMFuzzerTestOneInput")
public func readStateFiles(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let fixture = StateFuzzFixture.shared
  fixture.clearState()
  let content = Array(bytes.dropFirst())
  let readers = Int(bytes[0] / 4) % 6
  switch bytes[0] % 4 {
  case 0:
    fixture.writeJournals([content])
    fixture.readJournals(count: 1, readers: readers)
  case 1:
    let journals = StateFuzzFixture.journals(in: content)
    fixture.writeJournals(journals)
    fixture.readJournals(count: journals.count, readers: readers)
  case 2:
    fixture.writeHashCache(content)
    fixture.readHashCache()
  default:
    fixture.writeHashCache(StateFuzzFixture.withChecksMadeRight(content))
    fixture.readHashCache()
  }
  return 0
}

/// A folder holding jobs/incremental.yaml, as `jobs.yaml`, with the sources it reads.
final class StateFuzzFixture: Sendable {
  static let shared = StateFuzzFixture()

  /// The folder of this process's copy.
  let folder: String
  let manifest: String
  let state: StateFolder
  /// The sources' records as hashed without a cache.
  let sources: [FileRecord]

  /// The files of the example, relative to jobs/.
  static let exampleFiles = [
    "incremental/include/greet.h", "incremental/src/main.c", "incremental/src/greet.c", "incremental/src/sum.c",
  ]

  private init() {
    folder = "/tmp/oprun-state-fuzzer-\(getpid())"
    manifest = folder + "/jobs.yaml"
    state = StateFolder(manifestPath: manifest)
    let examples = Self.repositoryRoot + "/jobs/"
    Self.makeFolder(folder)
    Self.copy(examples + "incremental.yaml", to: manifest)
    for file in Self.exampleFiles {
      Self.makeFolder(folder + "/incremental")
      Self.makeFolder(folder + "/" + PathParts.folder(of: file))
      Self.copy(examples + file, to: folder + "/" + file)
    }
    // A file is trusted by the cache only once it is older than its hashing by the racy
    // margin: wait that out once, so that the check after each input holds from the first.
    var status = stat()
    stat(folder + "/" + Self.exampleFiles.last!, &status)
    while time(nil) <= status.st_ctim.tv_sec + 2 { usleep(100_000) }
    sources = FileHasher(cacheFolder: nil).snapshot(Self.sourcesRequest(in: folder)).files
    precondition(sources.count == Self.exampleFiles.count && sources.allSatisfy { $0.kind == .file })
    atexit { StateFuzzFixture.removeTree(StateFuzzFixture.shared.folder) }
  }

  /// Where this file's repository is: the example is read from its jobs/.
  private static var repositoryRoot: String {
    var path = #filePath
    for _ in 0..<4 { path = PathParts.folder(of: path) }
    return path
  }

  /// Every source file of the example.
  static func sourcesRequest(in folder: String) -> FileSetRequest {
    let patterns = ["incremental/src/", "incremental/include/"].map { try! PathPattern.parse($0).get() }
    return FileSetRequest(folder: folder, manifestFolder: folder, patterns: patterns)
  }

  func clearState() { Self.removeTree(state.path) }

  // MARK: Journals

  static let runIDs = (1...4).map { "20260101T000000-4242-\($0)" }

  /// The journals in `content`: its parts between lines holding only U+001E, at most four.
  static func journals(in content: [UInt8]) -> [[UInt8]] {
    var journals: [[UInt8]] = [[]]
    var start = 0
    while start < content.count {
      let end = content[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? content.count
      if content[start..<end].elementsEqual([0x1E, 0x0A]), journals.count < runIDs.count {
        journals.append([])
      } else {
        journals[journals.count - 1] += content[start..<end]
      }
      start = end
    }
    return journals
  }

  func writeJournals(_ journals: [[UInt8]]) {
    Self.makeFolder(state.path)
    Self.makeFolder(state.runs)
    for (journal, run) in zip(journals, Self.runIDs) {
      Self.write(journal, to: state.runs + "/" + JournalName(run: run).fileName)
    }
  }

  /// What reads journals for a user, `readers` of ``readStateFiles(_:_:)`` of it: none of it
  /// may fail on what they hold.
  func readJournals(count: Int, readers: Int) {
    var configuration = RunConfiguration(manifestPath: manifest)
    configuration.dryRun = true
    configuration.resume = readers % 3 == 1
    configuration.schedule = readers % 3 == 2 ? .criticalPath : .fifo
    expectSuccess(RunCommandLine.execute(configuration), "oprun -n")
    let json = readers >= 3
    expectSuccess(LogCommandLine.execute(arguments: [manifest], json: json), "oprun log")
    for run in Self.runIDs.prefix(count) {
      expectSuccess(LogCommandLine.execute(arguments: [manifest, run], json: json), "oprun log RUN")
    }
  }

  // MARK: The hash cache

  func writeHashCache(_ bytes: [UInt8]) {
    Self.makeFolder(state.path)
    Self.write(bytes, to: state.hashes)
  }

  /// `-n` reads the cache, hashes the sources it cannot vouch for and saves it; then a new
  /// reader of what it saved vouches for every source with its true digest.
  func readHashCache() {
    var configuration = RunConfiguration(manifestPath: manifest)
    configuration.dryRun = true
    expectSuccess(RunCommandLine.execute(configuration), "oprun -n")
    let hasher = FileHasher(cacheFolder: state.path)
    let found = hasher.snapshot(Self.sourcesRequest(in: folder)).files
    precondition(found == sources, "the saved hash cache gave other digests than the sources': \(found)")
    precondition(
      hasher.contentRead.files == 0, "the saved hash cache did not vouch for \(hasher.contentRead.files) sources")
  }

  /// `content` as a hash cache file whose every block's check is right: its header (the
  /// first line) is kept, then each block's size is taken as written and its check put
  /// after it, until a size passes the end.
  static func withChecksMadeRight(_ content: [UInt8]) -> [UInt8] {
    var bytes = content
    guard var offset = bytes.firstIndex(of: UInt8(ascii: "\n")).map({ $0 + 1 }) else { return bytes }
    while bytes.count - offset >= 16 {
      let size = bytes.withUnsafeBytes {
        UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      }
      guard size <= UInt64(bytes.count - offset - 16) else { break }
      let end = offset + 8 + Int(size)
      let check = bytes.withUnsafeBytes { XXHash64.hash(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
      withUnsafeBytes(of: check.littleEndian) { bytes.replaceSubrange(end..<(end + 8), with: $0) }
      offset = end + 8
    }
    return bytes
  }

  // MARK: Files

  private func expectSuccess(_ status: Int32, _ what: String) {
    precondition(status == 0, "\(what) exited \(status)")
  }

  private static func makeFolder(_ path: String) {
    precondition(mkdir(path, 0o700) == 0 || errno == EEXIST, "cannot make \(path): errno \(errno)")
  }

  private static func write(_ bytes: [UInt8], to path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(descriptor >= 0, "cannot create \(path): errno \(errno)")
    defer { close(descriptor) }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
      precondition(count > 0, "cannot write \(path): errno \(errno)")
      written += count
    }
  }

  private static func copy(_ source: String, to destination: String) {
    let descriptor = open(source, O_RDONLY | O_CLOEXEC)
    precondition(descriptor >= 0, "cannot open \(source): errno \(errno)")
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      precondition(count >= 0, "cannot read \(source): errno \(errno)")
      if count == 0 { break }
      bytes += buffer.prefix(count)
    }
    write(bytes, to: destination)
  }

  /// Removes `path` and everything under it, never following a link.
  static func removeTree(_ path: String) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return }
    if status.st_mode & S_IFMT == S_IFDIR, let directory = opendir(path) {
      var names: [String] = []
      while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != ".", name != ".." { names.append(name) }
      }
      closedir(directory)
      for name in names { removeTree(path + "/" + name) }
      rmdir(path)
    } else {
      unlink(path)
    }
  }
}
