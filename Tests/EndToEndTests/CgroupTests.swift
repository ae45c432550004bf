import Foundation
import Testing

/// A job that declares resources runs in a cgroup of its own (SPEC §12): held to its memory,
/// measured as a whole group, and no cgroup of the run's is left however the run ends. These
/// tests need cgroups oprun may make (root with cgroup v1's memory controller, or a delegated
/// cgroup v2 subtree); where the test machine has none they say so and fail.
@Suite(.serialized) struct CgroupTests {
  /// Allocates `MEGABYTES` (and writes every page), creates `MINE`, then waits until `OTHER`
  /// exists, if given: two of them hold their memory at the same time.
  static let allocator = """
    import os, sys, time
    block = b"x" * (int(sys.argv[1]) << 20)
    open(sys.argv[2], "w").close()
    while len(sys.argv) > 3 and not os.path.exists(sys.argv[3]):
        time.sleep(0.01)

    """
  static let megabyte = 1 << 20
  /// Writes the job's cgroups where the test can find them.
  static let recordCgroup = "cat /proc/self/cgroup > cgroup.txt"

  static func scratch(_ manifest: String) throws -> Scratch {
    let folder = try Scratch()
    try folder.write("alloc.py", allocator)
    try folder.manifest(manifest)
    return folder
  }

  @Test func twoProcessesOfAJobArePeakedTogetherByItsCgroup() throws {
    let folder = try Self.scratch(
      """
      jobs:
        pair:
          command: \(Self.recordCgroup); python3 alloc.py 120 a b & python3 alloc.py 120 b a; wait
          resources: {cpus: 1, memory: 1G}
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let pair = try #require(folder.events.finish(of: "pair"))
    #expect(pair.string("memory_source") == "cgroup", "\(pair)")
    let peak = try #require(pair.int("peak_memory"))
    #expect(peak >= 230 * Self.megabyte && peak <= 330 * Self.megabyte, "peak_memory \(peak)")
    try expectNoCgroupLeft(by: folder)
  }

  @Test func aJobPassingItsMemoryFailsOutOfMemory() throws {
    let folder = try Self.scratch(
      """
      jobs:
        greedy:
          command: \(Self.recordCgroup); exec python3 alloc.py 300 done
          resources: {memory: 100M}
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    let greedy = try #require(folder.events.finish(of: "greedy"))
    #expect(greedy.string("outcome") == "failed")
    #expect(greedy.string("reason") == "out-of-memory", "\(greedy)")
    #expect(greedy.int("memory_limit") == 100 * Self.megabyte)
    #expect(run.stdout.contains("finished    greedy  failed (out of memory: 100 MB limit)"), "\(run.stdout)")
    #expect(!run.stdout.contains("signal"), "\(run.stdout)")
    #expect(!folder.exists("done"))
    try expectNoCgroupLeft(by: folder)
  }

  @Test func aRetryAfterRunningOutOfMemoryHasTwiceTheMemoryAndSucceeds() throws {
    let folder = try Self.scratch(
      """
      jobs:
        grows:
          command: \(Self.recordCgroup); exec python3 alloc.py 150 done
          resources: {memory: 100M}
          retries: 1
      """)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let retry = try #require(folder.events.transitions(of: "grows", to: "ready").last)
    #expect(retry.string("reason") == "out-of-memory" && retry.int("memory") == 200 * Self.megabyte, "\(retry)")
    let grows = try #require(folder.events.finish(of: "grows"))
    #expect(grows.string("outcome") == "succeeded" && grows.int("attempt") == 2, "\(grows)")
    #expect(run.stdout.contains("out of memory: 100 MB limit; its memory doubled to 200 MB"), "\(run.stdout)")
    try expectNoCgroupLeft(by: folder)
  }

  /// A job after a bigger one in the same cgroup (emptied and given to it) reports its own
  /// peak, not the bigger one's.
  @Test func aJobInACgroupAnotherJobUsedBeforeReportsItsOwnPeak() throws {
    let folder = try Self.scratch(
      """
      jobs:
        big:
          command: cat /proc/self/cgroup > big.txt; python3 alloc.py 200 big
          resources: {memory: 1G}
        small:
          command: cat /proc/self/cgroup > small.txt; python3 alloc.py 20 small
          resources: {memory: 1G}
          dependencies: [big]
      """)
    let run = try runOprun(runArguments(["-j", "1"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.read("big.txt") == folder.read("small.txt"), "the second job had a cgroup of its own")
    let big = try #require(folder.events.finish(of: "big"))
    #expect((big.int("peak_memory") ?? 0) >= 200 * Self.megabyte, "\(big)")
    let small = try #require(folder.events.finish(of: "small"))
    #expect(small.string("memory_source") == "cgroup", "\(small)")
    let peak = try #require(small.int("peak_memory"))
    #expect(peak >= 20 * Self.megabyte && peak < 100 * Self.megabyte, "peak_memory \(peak)")
  }

  /// CPU time is the attempt's own: a job that only reads a file, after one that burned half
  /// a second in the same cgroup, is not charged with it.
  @Test func aJobInACgroupAnotherJobUsedBeforeReportsItsOwnCPUTime() throws {
    let folder = try Self.scratch(
      """
      jobs:
        burn:
          command: cat /proc/self/cgroup > burn.txt; python3 burn.py
          resources: {memory: 1G}
        idle:
          command: cat /proc/self/cgroup > idle.txt
          resources: {memory: 1G}
          dependencies: [burn]
      """)
    try folder.write("burn.py", "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\n")
    let run = try runOprun(runArguments(["-j", "1"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(folder.read("burn.txt") == folder.read("idle.txt"), "the second job had a cgroup of its own")
    let burn = try #require(folder.events.finish(of: "burn")?.double("cpu_s"))
    let idle = try #require(folder.events.finish(of: "idle")?.double("cpu_s"))
    #expect(burn >= 0.5 && idle < burn / 5, "cpu_s \(burn) then \(idle)")
  }

  /// Out of memory is told by what the kernel killed during the attempt: a job after one that
  /// ran out, in the same cgroup, did not; one after a job that did not, did.
  @Test func outOfMemoryIsToldPerAttemptInAReusedCgroup() throws {
    let folder = try Self.scratch(
      """
      jobs:
        fits:
          command: cat /proc/self/cgroup > fits.txt; cp fits.txt cgroup.txt; exec python3 alloc.py 20 fits
          resources: {memory: 100M}
        greedy:
          command: cat /proc/self/cgroup > greedy.txt; exec python3 alloc.py 300 greedy
          resources: {memory: 100M}
          dependencies: [fits]
        after:
          command: cat /proc/self/cgroup > after.txt; exec python3 alloc.py 20 after
          resources: {memory: 100M}
          dependencies: [greedy]
          run-if: always
      """)
    let run = try runOprun(runArguments(["-j", "1"]), in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    #expect(
      folder.read("fits.txt") == folder.read("greedy.txt") && folder.read("greedy.txt") == folder.read("after.txt"))
    let fits = try #require(folder.events.finish(of: "fits"))
    #expect(fits.string("outcome") == "succeeded", "\(fits)")
    let greedy = try #require(folder.events.finish(of: "greedy"))
    #expect(greedy.string("reason") == "out-of-memory", "\(greedy)")
    let after = try #require(folder.events.finish(of: "after"))
    #expect(after.string("outcome") == "succeeded" && after.string("reason") == nil, "\(after)")
    try expectNoCgroupLeft(by: folder)
  }

  /// A cgroup that a job's leftover still holds is not given to the next job, whether the
  /// leftover stayed in the job's process group or left it for a session of its own: the
  /// next job runs in a cgroup of its own, and its peak is not the leftover's. Also when the
  /// cgroup was looked into just before: `first` leaves a process behind, so that at the end
  /// of `clean`, which leaves nothing, the cgroup `leaver` is then given is read for emptiness.
  @Test(arguments: ["", "setsid "]) func aCgroupALeftoverHoldsIsNotGivenToTheNextJob(detach: String) throws {
    let folder = try Self.scratch(
      """
      jobs:
        first:
          command: sleep 300 > /dev/null 2>&1 &
          resources: {memory: 1G}
        clean:
          command: cat /proc/self/cgroup > clean.txt
          resources: {memory: 1G}
          dependencies: [first]
        leaver:
          command: cat /proc/self/cgroup > leaver.txt; cp leaver.txt cgroup.txt; \(detach)python3 alloc.py 200 held > /dev/null 2>&1 & while [ ! -e held ]; do sleep 0.01; done
          resources: {memory: 1G}
          dependencies: [clean]
        next:
          command: cat /proc/self/cgroup > next.txt
          resources: {memory: 1G}
          dependencies: [leaver]
      """)
    try folder.write("alloc.py", Self.allocator + "time.sleep(300)\n")
    let run = try runOprun(runArguments(["-j", "1", "--grace", "0.5"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let leaver = try #require(folder.read("leaver.txt"))
    let next = try #require(folder.read("next.txt"))
    #expect(folder.read("clean.txt") == leaver, "the cgroup of a job that left nothing was not given again")
    #expect(leaver != next, "the next job was given the cgroup a leftover holds: \(next)")
    let peak = try #require(folder.events.finish(of: "next")?.int("peak_memory"))
    #expect(peak < 100 * Self.megabyte, "peak_memory \(peak)")
    try expectNoCgroupLeft(by: folder)
  }

  /// Memory a job leaves charged that cannot be given back (a file in a tmpfs, where there is
  /// no swap to put it in) does not count against the next job: a cgroup holding it is not
  /// given again, and the next job fits in its own limit.
  @Test func memoryAJobLeftInATmpfsDoesNotCountAgainstTheNextJob() throws {
    let file = "/dev/shm/oprun-cgroup-test-\(getpid())-\(UUID().uuidString)"
    defer { unlink(file) }
    let folder = try Self.scratch(
      """
      jobs:
        fill:
          command: cat /proc/self/cgroup > fill.txt; cp fill.txt cgroup.txt; head -c 300M /dev/zero > \(file)
          resources: {memory: 1G}
        next:
          command: cat /proc/self/cgroup > next.txt; exec python3 alloc.py 200 next
          resources: {memory: 400M}
          dependencies: [fill]
      """)
    let run = try runOprun(runArguments(["-j", "1"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let next = try #require(folder.events.finish(of: "next"))
    #expect(next.string("outcome") == "succeeded", "\(next)")
    let peak = try #require(next.int("peak_memory"))
    #expect(peak >= 200 * Self.megabyte && peak < 300 * Self.megabyte, "peak_memory \(peak)")
    #expect(folder.read("fill.txt") != folder.read("next.txt"), "the cgroup holding the tmpfs file was given again")
    try expectNoCgroupLeft(by: folder)
  }

  /// What a job left running, even in a session of its own, is in its cgroup and ends with the run.
  @Test func whatAJobLeftInItsCgroupEndsWithTheRun() throws {
    let folder = try Self.scratch(
      """
      jobs:
        leaver:
          command: \(Self.recordCgroup); setsid sleep 300 > /dev/null 2>&1 & echo $! > leftover.pid
          resources: {cpus: 1}
      """)
    let run = try runOprun(runArguments(["--grace", "0.5"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let leftover = try #require(
      folder.read("leftover.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
    defer { kill(leftover, SIGKILL) }
    #expect(!isAlive(leftover), "the setsid leftover outlived the run")
    try expectNoCgroupLeft(by: folder)
  }

  @Test func ctrlCLeavesNoCgroup() throws {
    let folder = try Self.scratch(
      """
      jobs:
        waits:
          command: \(Self.recordCgroup); touch ready; exec sleep 300
          resources: {memory: 100M}
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "0.5"]), in: folder)
    try folder.waitUntilExists("ready")
    let runFolders = try runCgroupFolders(of: folder)
    #expect(runFolders.allSatisfy { FileManager.default.fileExists(atPath: $0) })
    oprun.send(SIGINT)
    let ended = oprun.wait()
    #expect(ended.signal == SIGINT, "\(ended.stderr)")
    for runFolder in runFolders { #expect(!FileManager.default.fileExists(atPath: runFolder), "\(runFolder)") }
  }

  /// The watchdog removes the run's cgroups when oprun is killed.
  @Test func theWatchdogRemovesTheCgroupsOfAKilledOprun() throws {
    let folder = try Self.scratch(
      """
      jobs:
        waits:
          command: \(Self.recordCgroup); touch ready; exec sleep 300
          resources: {memory: 100M}
      """)
    let oprun = try OprunProcess(runArguments(["--grace", "0.5"]), in: folder)
    try folder.waitUntilExists("ready")
    let runFolders = try runCgroupFolders(of: folder)
    let job = try #require(folder.events.pids(of: "waits").first)
    defer { kill(-job, SIGKILL) }
    oprun.send(SIGKILL)
    #expect(oprun.wait().signal == SIGKILL)
    for runFolder in runFolders {
      try waitUntil("the watchdog to remove \(runFolder)") { !FileManager.default.fileExists(atPath: runFolder) }
    }
  }

  /// Run as a user with no cgroup of its own to use, the run warns once and goes on, measured
  /// by the kernel's accounting of its reaped processes.
  @Test func withoutACgroupToMakeTheRunWarnsOnceAndGoesOn() throws {
    let folder = try Self.scratch(
      """
      jobs:
        one: {command: python3 alloc.py 40 one, resources: {memory: 100M}}
        two: {command: python3 alloc.py 40 two, resources: {memory: 100M}}
      """)
    #expect(chmod(folder.url.path, 0o777) == 0)
    let oprun = try OprunProcess(
      ["--reuid=65534", "--regid=65534", "--clear-groups", oprunBinary] + runArguments(), in: folder,
      executable: "/usr/bin/setpriv")
    let run = oprun.wait()
    #expect(run.status == 0, "\(run.stderr)")
    let warning = "memory is scheduled and measured but not enforced"
    #expect(run.stderr.components(separatedBy: warning).count == 2, "\(run.stderr)")
    for job in ["one", "two"] {
      let finished = try #require(folder.events.finish(of: job))
      #expect(finished.string("memory_source") == "process", "\(finished)")
      #expect((finished.int("peak_memory") ?? 0) >= 40 * Self.megabyte, "\(finished)")
    }
  }
}

/// The folders of the run's cgroups, from what its job wrote of `/proc/self/cgroup` to
/// `cgroup.txt`: the parent of each of the job's cgroups named `oprun-…/…`. Fails when the
/// job ran in none.
private func runCgroupFolders(of folder: Scratch) throws -> [String] {
  let lines = try #require(folder.read("cgroup.txt"), "the job wrote no cgroup.txt").split(separator: "\n")
  let mounts = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8).split(separator: "\n")
    .compactMap { line -> (point: String, root: String, type: String, options: [Substring])? in
      let fields = line.split(separator: " ")
      guard let dash = fields.firstIndex(of: "-"), fields.count > dash + 3,
        fields[dash + 1].hasPrefix("cgroup")
      else { return nil }
      return (String(fields[4]), String(fields[3]), String(fields[dash + 1]), fields[dash + 3].split(separator: ","))
    }
  var folders: [String] = []
  for line in lines {
    let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    guard fields.count == 3, fields[2].contains("/oprun-") else { continue }
    let controllers = fields[1].split(separator: ",")
    guard
      let mount = mounts.first(where: {
        controllers.isEmpty ? $0.type == "cgroup2" : $0.type == "cgroup" && $0.options.contains(controllers[0])
      })
    else { continue }
    let path = String(fields[2].dropFirst(mount.root == "/" ? 0 : mount.root.count))
    folders.append(URL(fileURLWithPath: mount.point + path).deletingLastPathComponent().path)
  }
  try #require(!folders.isEmpty, "the job ran in no cgroup of the run's: \(lines)")
  return folders
}

/// The run that has ended left no cgroup: those its job ran in are gone.
private func expectNoCgroupLeft(by folder: Scratch, sourceLocation: SourceLocation = #_sourceLocation) throws {
  for runFolder in try runCgroupFolders(of: folder) {
    #expect(!FileManager.default.fileExists(atPath: runFolder), "\(runFolder) is left", sourceLocation: sourceLocation)
  }
}
