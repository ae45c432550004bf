import Foundation
import Glibc
import Testing

@testable import OprunRuntime

/// The locks between runs (SPEC §10): one file per job, an exclusive flock on it, and what
/// the file says of who held it last.
@Suite struct JobLocksTests {
  /// The locks of a manifest in a fresh folder, for a run that looked at its files `at`.
  private func locks(in folder: String, lookedAt: Double = MonotonicClock.now()) -> JobLocks {
    JobLocks(manifestPath: folder + "/jobs.yaml", lookedAt: lookedAt)
  }

  /// `job`'s lock, taken, and whether another run held it since `locks`' run looked; the
  /// test fails here when the lock is not free.
  private func take(
    _ job: String, from locks: JobLocks, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> (lock: JobLock, changedSince: Bool) {
    guard case .taken(let lock, let changedSince) = locks.take(job) else {
      Issue.record("\(job)'s lock is free, so it is taken", sourceLocation: sourceLocation)
      throw CancellationError()
    }
    return (lock, changedSince)
  }

  @Test func aHeldLockKeepsEveryOtherTakerOutAndNamesItsHolder() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = locks(in: folder)
    let (lock, changedSince) = try take("gen", from: locks)
    #expect(!changedSince, "no run held it before")
    // flock excludes another open file, in this process as in another.
    guard case .heldElsewhere(let unknown) = locks.take("gen") else {
      Issue.record("a held lock is not taken twice")
      return
    }
    #expect(unknown == nil, "its holder is named once it runs the job")
    #expect(lock.markRunning() == nil)
    guard case .heldElsewhere(let pid) = locks.take("gen") else {
      Issue.record("a held lock is not taken twice")
      return
    }
    #expect(pid == getpid())
    let other = try take("gen[2]", from: locks).lock
    lock.release()
    other.release()
    let again = try take("gen", from: locks).lock
    again.release()
  }

  @Test func aLockReleasedAfterTheRunLookedIsNewsAndOneReleasedBeforeIsNot() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let earlier = locks(in: folder)
    let lock = try take("gen", from: earlier).lock
    #expect(lock.markRunning() == nil)
    lock.release()
    let (again, changedSince) = try take("gen", from: earlier)
    #expect(changedSince, "released after this run began to look")
    again.release()
    let later = locks(in: folder, lookedAt: MonotonicClock.now() + 1)
    let (third, changedSinceLater) = try take("gen", from: later)
    #expect(!changedSinceLater, "released before this run began to look")
    third.release()
  }

  @Test func aRunThatFindsTheJobUpToDateLeavesTheFileAsItWas() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = locks(in: folder)
    let lock = try take("gen", from: locks).lock
    lock.release()
    #expect(FileManager.default.contents(atPath: locks.file(of: "gen")) == Data(), "nothing written")
    let (again, changedSince) = try take("gen", from: locks)
    #expect(!changedSince, "nothing ran")
    again.release()
  }

  @Test func aLockLeftHeldByARunThatDiedIsNews() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = locks(in: folder, lookedAt: MonotonicClock.now() + 1)
    let lock = try take("gen", from: locks).lock
    lock.release()
    // What a run killed while it held the lock leaves: its stamp, and no flock.
    let file = locks.file(of: "gen")
    try LockStamp(isHeld: true, pid: 1, time: 0).line.write(toFile: file, atomically: false, encoding: .utf8)
    let (again, changedSince) = try take("gen", from: locks)
    #expect(changedSince, "the dead run may have written the job's outputs or record")
    again.release()
  }

  @Test func aLockLetGoOfBeforeItsJobFinishedStillSaysHeld() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = locks(in: folder, lookedAt: MonotonicClock.now() + 1)
    do {
      let lock = try take("gen", from: locks).lock
      #expect(lock.markRunning() == nil)
      // The run is torn down with the job running: no record of it is written.
    }
    let (again, changedSince) = try take("gen", from: locks)
    #expect(changedSince, "the job may have changed its files")
    #expect(LockStamp(line: try String(contentsOfFile: locks.file(of: "gen"), encoding: .utf8))?.isHeld == true)
    again.release()
  }

  @Test func aLockFileIsThisUsersAloneAndALinkInItsPlaceIsNotFollowed() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = locks(in: folder)
    let lock = try take("gen", from: locks).lock
    lock.release()
    var status = stat()
    #expect(stat(locks.file(of: "gen"), &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    #expect(stat(locks.folder, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o700)

    let target = folder + "/elsewhere"
    #expect(symlink(target, locks.file(of: "other")) == 0)
    guard case .unavailable = locks.take("other") else {
      Issue.record("a link is not opened")
      return
    }
    #expect(access(target, F_OK) != 0, "nothing was created through the link")
  }

  @Test func aHardLinkPlantedInPlaceOfALockFileIsNotWrittenThrough() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = locks(in: folder)
    try take("gen", from: locks).lock.release()  // makes locks/
    let precious = folder + "/precious"
    try "the user's own".write(toFile: precious, atomically: false, encoding: .utf8)
    #expect(link(precious, locks.file(of: "other")) == 0)
    guard case .unavailable = locks.take("other") else {
      Issue.record("a file linked twice is no lock file")
      return
    }
    #expect(try String(contentsOfFile: precious, encoding: .utf8) == "the user's own")
  }

  @Test func aStampThatCannotBeWrittenLeavesAFileThatReadsAsChanged() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let full = open("/dev/full", O_RDWR | O_CLOEXEC)
    defer { close(full) }
    #expect(LockStamp(isHeld: true, pid: 1, time: 1).write(to: full) == String(cString: strerror(ENOSPC)))
    // What a stamp not written whole leaves: the file cut to one byte.
    let locks = locks(in: folder, lookedAt: MonotonicClock.now() + 1)
    try take("gen", from: locks).lock.release()
    try "f".write(toFile: locks.file(of: "gen"), atomically: false, encoding: .utf8)
    let (again, changedSince) = try take("gen", from: locks)
    #expect(changedSince, "a run may have changed it, and its stamp may not say so")
    again.release()
  }

  @Test func aStampOfAnotherBootOrTimeNamespaceIsNews() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
    #expect(LockStamp.thisClock.hasPrefix(boot.trimmingCharacters(in: .whitespacesAndNewlines) + "/"))
    let locks = locks(in: folder, lookedAt: MonotonicClock.now() + 1)
    try take("gen", from: locks).lock.release()
    let file = locks.file(of: "gen")
    // Released long before this run looked, on this clock: nothing changed since.
    try LockStamp(isHeld: false, pid: 1, time: 0).line.write(toFile: file, atomically: false, encoding: .utf8)
    let (same, unchanged) = try take("gen", from: locks)
    #expect(!unchanged)
    same.release()
    // The same time on another clock (another boot, host or time namespace) says nothing of when.
    try LockStamp(isHeld: false, pid: 1, time: 0, clock: "another-boot/1").line.write(
      toFile: file, atomically: false, encoding: .utf8)
    let (other, changedSince) = try take("gen", from: locks)
    #expect(changedSince)
    other.release()
  }

  @Test func aStampIsOneLineOfFixedWidthReadBackAsWritten() {
    let stamp = LockStamp(isHeld: true, pid: 4242, time: 12345.678901234)
    #expect(stamp.line.utf8.count == LockStamp.width)
    #expect(stamp.line.hasSuffix("\n"))
    #expect(LockStamp(line: stamp.line) == stamp)
    #expect(LockStamp(line: "free 7 3.5 b/1") == LockStamp(isHeld: false, pid: 7, time: 3.5, clock: "b/1"))
    #expect(LockStamp(line: "free 7 3.5") == nil, "no clock: an older oprun's, read as changed")
    #expect(LockStamp(line: "gibberish") == nil)
  }
}
