import Foundation
import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// Locks that run out of descriptors while one of them is held, as a process at its
/// open-file limit does: the held lock's descriptor is the one that would come back.
final class DescriptorStarvedLocks: JobLocks {
  private var handedOut: [JobLock] = []
  /// How many times a lock was refused for want of a descriptor.
  private(set) var refusals = 0

  override func take(_ job: String, file path: String) -> Taking {
    guard !handedOut.contains(where: \.isHeld) else {
      refusals += 1
      // A driver that tries again before a descriptor came back would never stop: end it.
      if refusals > 100 { return .unavailable("tried again with no descriptor back") }
      return .outOfDescriptors
    }
    let taking = super.take(job, file: path)
    if case .taken(let lock, _) = taking { handedOut.append(lock) }
    return taking
  }
}

/// Locks whose files cannot be written, as on a full disk: each is `/dev/full`.
final class FullDiskLocks: JobLocks {
  override func take(_ job: String, file path: String) -> Taking {
    .taken(JobLock(descriptor: open("/dev/full", O_RDWR | O_CLOEXEC)), changedSince: false)
  }
}

/// Locks that another run always held since this one looked: each taking reads the job's
/// record again.
final class ChangedLocks: JobLocks {
  override func take(_ job: String, file path: String) -> Taking {
    let taking = super.take(job, file: path)
    guard case .taken(let lock, _) = taking else { return taking }
    return .taken(lock, changedSince: true)
  }
}

/// The driver and the locks between runs (SPEC §10), on locks that answer as scripted.
@Suite struct RunDriverLocksTests {
  /// `a` and `b`, each writing one output, run with `force` on `locks`.
  static func twoJobsWithOutputs(locks: JobLocks) -> DriverHarness {
    DriverHarness(
      """
      jobs:
        a: {command: a, outputs: [x]}
        b: {command: b, outputs: [y]}
      """
    ) { clock in
      let checker = FakeFileChecker(clock: clock)
      checker.snapshots = ["x": FakeFileChecker.file("x", "1"), "y": FakeFileChecker.file("y", "1")]
      return FileTracking(checker: checker, records: [:], recordedInputs: { _ in nil }, force: true, locks: locks)
    }
  }

  @Test func aJobThatFoundNoDescriptorForItsLockIsTriedOnceOneOfTheRunsLocksIsReleased() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = DescriptorStarvedLocks(manifestPath: folder + "/jobs.yaml", lookedAt: MonotonicClock.now())
    let run = Self.twoJobsWithOutputs(locks: locks)
    run.start()
    // a holds its lock; b found no descriptor, and the loop was given back at once.
    #expect(locks.refusals == 1)
    #expect(run.events.lines(of: "b") == ["b pending>ready"])
    #expect(run.runToEnd() == 0)
    #expect(locks.refusals == 1, "tried again only once a's lock was released")
    #expect(run.backend.attemptOrders(of: run.id("b")).count == 1)
    let lines = run.events.lines
    #expect(lines.firstIndex(of: "a executing>finished succeeded")! < lines.firstIndex(of: "b ready>executing")!)
  }

  @Test func aLockFileThatCannotBeWrittenIsWarnedOfOnceAndTheJobsRunOn() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = FullDiskLocks(manifestPath: folder + "/jobs.yaml", lookedAt: MonotonicClock.now())
    let run = Self.twoJobsWithOutputs(locks: locks)
    run.start()
    #expect(run.runToEnd() == 0)
    let warnings = run.events.lines.filter { $0.hasPrefix("warning ") }
    #expect(warnings.count == 1)
    #expect(warnings.first?.contains("cannot write the lock file of 'a'") == true)
    #expect(warnings.first?.contains(String(cString: strerror(ENOSPC))) == true)
  }

  @Test func aRecordThatCannotBeReadAgainForWantOfADescriptorIsAskedForOnTheTimer() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let locks = ChangedLocks(manifestPath: folder + "/jobs.yaml", lookedAt: MonotonicClock.now())
    let manifest = "jobs:\n  build: {command: build, inputs: [src], outputs: [app]}\n"
    let source = FakeFileChecker.file("src", "v1")
    let app = FakeFileChecker.file("app", "a1")
    var readings: [Double] = []
    var clock: ManualClock!
    let run = DriverHarness(manifest) { manual in
      clock = manual
      let checker = FakeFileChecker(clock: manual)
      checker.snapshots = ["src": source, "app": app]
      return FileTracking(
        checker: checker, records: [:], recordedInputs: { _ in nil }, force: false, locks: locks,
        newestRecord: { name in
          readings.append(clock.time)
          // The other run's journal cannot be opened at first; then it says the job is up to date.
          guard readings.count > 1 else { return .notNow }
          let graph = try! ManifestLoader.graph(
            from: SourceText(path: "/work/jobs.yaml", text: manifest), defaultMaxConcurrent: 4
          ).get()
          let fingerprint = graph.fingerprints()[graph.job(named: name)!]
          var record = JournalRecord(
            job: name, outcome: .succeeded, exitCode: 0, duration: 1, fingerprint: fingerprint.value,
            parts: fingerprint.parts)
          record.files = RecordedFiles(
            inputs: source.digest, outputs: RecordedOutputs(app), result: app.digest, dependencies: [:])
          return .read(record)
        })
    }
    run.start()
    #expect(readings == [0], "asked once, and not decided from the record read before")
    #expect(run.events.lines(of: "build") == ["build pending>ready"])
    #expect(run.runToEnd() == 0)
    #expect(readings.count == 2 && readings[1] > 0, "asked again on the timer")
    #expect(run.events.lines(of: "build") == ["build pending>ready", "build ready>finished succeeded"])
    #expect(run.backend.attemptOrders(of: run.id("build")).isEmpty, "the other run's record says it is up to date")
  }
}
