import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Snapshot throughput on 10,000 files of 100 KB in 100 folders (977 MB). Opt-in
/// (`OPRUN_BENCH=1`), best in release: `OPRUN_BENCH=1 swift test -c release -Xswiftc
/// -enable-testing --filter FileHashingBenchmark`. It prints its numbers and fails only on a
/// wrong count; the files are in the page cache, so it measures hashing, not the disk.
@Suite(.serialized, .enabled(if: getenv("OPRUN_BENCH") != nil))
struct FileHashingBenchmarkTests {
  @Test func coldThenWarmSnapshotOfTenThousandFiles() throws {
    let tree = try FileTree()
    var content = [UInt8](repeating: 0, count: 100 * 1024)
    for index in content.indices { content[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
    for folder in 0..<100 {
      tree.makeFolder("data/\(folder)")
      for file in 0..<100 {
        let descriptor = open(tree.path("data/\(folder)/\(file).bin"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        content[0] = UInt8(file)
        _ = content.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
      }
    }
    // Hashed "long after" the files were written, so that the warm pass trusts the cache.
    let hasher = FileHasher(cacheFolder: tree.path(".oprun")) { Timestamp.now().minus(seconds: -60) }
    let coldStart = MonotonicClock.now()
    let cold = try tree.snapshot(["data/**/*.bin"], hasher: hasher)
    let coldSeconds = MonotonicClock.now() - coldStart
    #expect(cold.files.count == 10_000)
    let gigabytes = Double(hasher.contentRead.bytes) / 1e9
    print("cold: \(cold.files.count) files, \(gigabytes) GB in \(coldSeconds) s: \(gigabytes / coldSeconds) GB/s")

    let warmStart = MonotonicClock.now()
    let warm = try tree.snapshot(["data/**/*.bin"], hasher: hasher)
    let warmSeconds = MonotonicClock.now() - warmStart
    #expect(warm == cold)
    print("warm: \(warm.files.count) files in \(warmSeconds * 1000) ms, \(hasher.contentRead.files - 10_000) read")

    let saveStart = MonotonicClock.now()
    hasher.cache.save()
    let saveSeconds = MonotonicClock.now() - saveStart
    let loadStart = MonotonicClock.now()
    let loaded = HashCache(folder: tree.path(".oprun"))
    let loadSeconds = MonotonicClock.now() - loadStart
    #expect(loaded.count == 10_000)
    print("cache: saved in \(saveSeconds * 1000) ms, loaded \(loaded.count) entries in \(loadSeconds * 1000) ms")

    let reloadStart = MonotonicClock.now()
    let fresh = FileHasher(cacheFolder: tree.path(".oprun")) { Timestamp.now().minus(seconds: -60) }
    let reloaded = try tree.snapshot(["data/**/*.bin"], hasher: fresh)
    let reloadSeconds = MonotonicClock.now() - reloadStart
    #expect(reloaded == cold && fresh.contentRead.files == 0)
    print("warm: in a new hasher, cache load included: \(reloadSeconds * 1000) ms")
  }
}
