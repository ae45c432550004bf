import Foundation
import Testing

/// The control channel and `oprun ctl` (SPEC §8) against the built binary: choosing a run,
/// stale sockets, peers of other users, malformed and hostile clients, `watch`.
@Suite struct ControlChannelTests {
  @Test func ctlWithoutARunInProgressExits2AndListIsEmpty() throws {
    let scene = try ControlScene()
    let status = try scene.ctl(["status"])
    #expect(status.status == 2)
    #expect(status.stderr == "oprun: error: no run of this user is in progress\n")
    #expect(status.stdout.isEmpty)

    let list = try scene.ctl(["list", "--json"])
    #expect(list.status == 0)
    #expect(list.stdout == "[]\n")
    #expect(try scene.ctl(["--pid", "4242", "cancel", "a"]).status == 2)
  }

  @Test func theSocketIsNamedByPidInThe0700FolderAndRemovedWhenTheRunEnds() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(gatedManifest)
    let run = try scene.startRun()
    #expect(run.control == scene.socketFolder + "/\(run.pid).sock")
    #expect(scene.sockets == ["\(run.pid).sock"])
    let attributes = try FileManager.default.attributesOfItem(atPath: scene.socketFolder)
    #expect((attributes[.posixPermissions] as? Int) == 0o700)
    // Beside it, what the run says of itself, for `ctl` to read without asking.
    let description = try #require(scene.description(of: run.pid))
    #expect(description.string("manifest") == scene.folder.path("jobs.yaml"))
    #expect(description.int("pid") == Int(run.pid))
    scene.folder.touch("go")
    let finished = run.process.wait()
    #expect(finished.status == 0, "\(finished.stderr)")
    #expect(scene.sockets.isEmpty)
    #expect(scene.description(of: run.pid) == nil)
  }

  @Test func theSocketIsRemovedWhenASignalEndsTheRun() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(gatedManifest)
    let run = try scene.startRun()
    try waitUntil("first executing") { run.log.executed("first") }
    run.process.send(SIGTERM)
    let finished = run.process.wait()
    #expect(finished.signal == SIGTERM)
    #expect(scene.sockets.isEmpty)
  }

  @Test func twoRunsWithoutAChoiceExit2ListingBothAndPidChoosesOne() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(gatedManifestMarkingItsFlood("noisy.done"))
    try scene.folder.manifest(gatedManifestMarkingItsFlood("other-noisy.done"), name: "other.yaml")
    let one = try scene.startRun()
    let two = try scene.startRun(manifest: "other.yaml", events: "other.ndjson")
    defer {
      scene.folder.touch("go")
      _ = one.process.wait()
      _ = two.process.wait()
    }
    // Listing asks each run for its status with a time limit: it starts once both outputs are over.
    try scene.folder.waitUntilExists("noisy.done")
    try scene.folder.waitUntilExists("other-noisy.done")

    let unchosen = try scene.ctl(["cancel", "first"])
    #expect(unchosen.status == 2)
    let pids = [one.pid, two.pid].sorted().map(String.init).joined(separator: ", ")
    #expect(
      unchosen.stderr
        == "oprun: error: several runs of this user are in progress (pids \(pids)): choose one with --pid\n")

    let chosen = try scene.ctl(["--pid", "\(two.pid)", "status"])
    #expect(chosen.status != 2, "\(chosen.stderr)")
    #expect(chosen.status == 0)
    #expect(chosen.stdout.contains("QUEUE") && chosen.stdout.contains("noisy"))

    let byManifest = try scene.ctl(["--manifest", scene.folder.path("other.yaml"), "status", "--json"])
    #expect(byManifest.status == 0, "\(byManifest.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(byManifest.stdout.utf8)) as? [String: Any]
    #expect((object?["run"] as? [String: Any])?.int("pid") == Int(two.pid))

    let list = try scene.ctl(["list", "--json"])
    #expect(list.status == 0)
    let runs = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
    #expect(runs.compactMap { $0.int("pid") }.sorted() == [one.pid, two.pid].map(Int.init).sorted())
    let manifests = runs.compactMap { $0.string("manifest") }.sorted()
    #expect(manifests == [scene.folder.path("jobs.yaml"), scene.folder.path("other.yaml")].sorted())
  }

  @Test func aRefusedRequestExits1WithTheReasonOnStandardError() throws {
    let scene = try ControlScene()
    try scene.whileGatedRunWaits { _ in
      let refused = try scene.ctl(["cancel", "no-such-job"])
      #expect(refused.status == 1)
      #expect(refused.stderr.hasPrefix("oprun: error: ") && refused.stderr.hasSuffix("\n"))
      #expect(refused.stdout.isEmpty)
    }
  }

  @Test(arguments: [
    (["priority", "first", "urgent"], "unknown priority 'urgent'"),
    (["priority", "first"], "priority takes a JOB and a LEVEL"),
    (["limit", "main", "0"], "N takes a whole number of at least 1, not '0'"),
    (["limit", "main", "1.5"], "N takes a whole number of at least 1, not '1.5'"),
    (["limit", "main"], "Missing expected argument '<N>'"),
    (["cancel"], "missing JOB: name at least one"),
    (["pause"], "missing JOB: name at least one"),
    (["--pid", "1", "--manifest", "x", "status"], "--pid and --manifest exclude each other"),
    ([], "missing COMMAND: one of list, status, cancel, cancel-all, suspend, resume, limit, budget, priority, pause"),
    (["reboot"], "unknown command 'reboot'; the commands are list, status"),
  ])
  func aUsageErrorExits2BeforeAnyRequestIsSent(_ arguments: [String], _ message: String) throws {
    let scene = try ControlScene()
    try scene.folder.manifest(gatedManifest)
    let run = try scene.startRun()
    let usage = try scene.ctl(arguments)
    scene.folder.touch("go")
    _ = run.process.wait()
    #expect(usage.status == 2)
    #expect(usage.stderr.contains(message), "\(usage.stderr)")
    #expect(run.log.named("control").isEmpty)
  }

  @Test func aNegativePriorityNumberIsALevelNotAnOption() throws {
    let scene = try ControlScene()
    let result = try scene.ctl(["priority", "first", "-4"])
    #expect(result.stderr == "oprun: error: no run of this user is in progress\n")
  }

  @Test func aStaleSocketIsNoRunAndIsRemoved() throws {
    let scene = try ControlScene()
    try FileManager.default.createDirectory(
      atPath: scene.socketFolder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    // A socket bound by a process that has exited: what a run killed by SIGKILL leaves.
    let stale = scene.socketFolder + "/999999.sock"
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    python.arguments = ["-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", stale]
    try python.run()
    python.waitUntilExit()
    #expect(scene.sockets == ["999999.sock"])

    let status = try scene.ctl(["status"])
    #expect(status.status == 2)
    #expect(status.stderr == "oprun: error: no run of this user is in progress\n")
    #expect(scene.sockets.isEmpty)
  }

  @Test func aRunKilledBySIGKILLLeavesASocketTheNextCtlRemoves() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(gatedManifest)
    let run = try scene.startRun()
    try waitUntil("first executing") { run.log.executed("first") }
    run.process.send(SIGKILL)
    // The jobs outlive a killed oprun for a moment (and Foundation waits for them too).
    scene.folder.touch("go")
    _ = run.process.wait()
    #expect(scene.sockets == ["\(run.pid).sock"])
    let list = try scene.ctl(["list", "--json"])
    #expect(list.stdout == "[]\n")
    #expect(scene.sockets.isEmpty)
    #expect(scene.description(of: run.pid) == nil)
  }

  /// The folder and socket are opened up on purpose (chmod) so that uid 65534 can reach the
  /// socket; the channel still refuses it by its uid, unread.
  @Test func aClientOfAnotherUserIsRefusedAndTheRunGoesOnUnchanged() throws {
    try #require(geteuid() == 0, "changing uid takes root")
    let scene = try ControlScene()
    chmod(scene.folder.url.path, 0o755)
    chmod(scene.runtime, 0o755)
    try scene.folder.manifest(gatedManifest)
    let run = try scene.startRun()
    let socket = try #require(run.control)
    chmod(scene.socketFolder, 0o755)
    chmod(socket, 0o666)

    let stranger = try scene.ctl(["--pid", "\(run.pid)", "cancel-all"], asUID: 65534)
    #expect(stranger.status == 1)
    #expect(stranger.stderr == "oprun: error: pid \(run.pid): the run closed the connection without answering\n")

    scene.folder.touch("go")
    let finished = run.process.wait()
    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    for job in ["first", "second", "third", "noisy"] {
      #expect(log.outcome(of: job) == "succeeded", "\(job)")
    }
    #expect(log.named("cancelled").isEmpty)
    #expect(log.named("control").isEmpty)
    expectStreamContract(log)
    let refused = try #require(log.named("control-refused").first)
    #expect(refused.int("peer_uid") == 65534)
    #expect(finished.stderr.contains("65534"))
  }

  @Test func aFolderOfAnotherUserLeavesTheRunWithoutAChannelAndOneWarning() throws {
    let scene = try ControlScene()
    try FileManager.default.createDirectory(
      atPath: scene.socketFolder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    chown(scene.socketFolder, 65534, 65534)
    try scene.folder.manifest("jobs: {only: {command: echo hi}}")
    let run = try scene.startRun()
    let finished = run.process.wait()

    #expect(finished.status == 0)
    #expect(run.control == nil)
    let warnings = finished.stderr.split(separator: "\n").filter { $0.hasPrefix("oprun: warning: ") }
    #expect(
      warnings == [
        "oprun: warning: no control channel for this run: '\(scene.socketFolder)' belongs to uid 65534, not to this user (uid 0)"
      ])
    #expect(run.log.outcome(of: "only") == "succeeded")
    expectStreamContract(run.log)
  }

  @Test func aSymbolicLinkInPlaceOfTheFolderLeavesTheRunWithoutAChannel() throws {
    let scene = try ControlScene()
    let elsewhere = scene.folder.path("elsewhere")
    try FileManager.default.createDirectory(
      atPath: elsewhere, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    try FileManager.default.createSymbolicLink(atPath: scene.socketFolder, withDestinationPath: elsewhere)
    try scene.folder.manifest("jobs: {only: {command: echo hi}}")
    let run = try scene.startRun()
    let finished = run.process.wait()
    #expect(finished.status == 0)
    #expect(run.control == nil)
    #expect(finished.stderr.contains("is a symbolic link, not a folder of this user"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
  }

  /// A watcher started mid-run sees every line of `--events`, in order, with the jobs'
  /// output among them.
  @Test func aWatchAttachedMidRunSeesEveryEventOfTheEventStreamInOrder() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(
      """
      max-concurrent: 2
      jobs:
        first: {command: "seq 1 2000; while [ ! -e go ]; do sleep 0.02; done; echo first done"}
        second: {command: echo second; exit 3, dependencies: [first]}
        third: {command: echo third, completion: "true"}
      """)
    let run = try scene.startRun()
    try waitUntil("first executing") { run.log.executed("first") }
    let watch = try scene.startCtl(["watch", "--json"])
    try waitUntil("watch attached or refused") {
      !watch.process.process.isRunning || !watch.process.standardOutput.isEmpty
    }
    let endedBeforeTheRun = !watch.process.process.isRunning
    scene.folder.touch("go")
    let finished = run.process.wait()
    let watched = watch.wait()
    #expect(finished.status == 1, "second fails: \(finished.stderr)")

    #expect(!endedBeforeTheRun, "watch ended before the run: \(watched.stderr)")
    #expect(watched.status == 0, "\(watched.stderr)")
    let lines = watched.stdout.split(separator: "\n").map(String.init)
    let events = try String(contentsOfFile: run.events, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines == events)
    #expect(lines.contains { $0.contains(#""event":"output","job":"first""#) })
  }

  /// A few thousand random, oversized and truncated requests and a watcher that never reads,
  /// while the run goes on: every job's transitions are intact and nothing waits on them.
  @Test func hostileClientsNeverStallOrBreakTheRun() throws {
    let scene = try ControlScene()
    try scene.folder.manifest(gatedManifestMarkingItsFlood("noisy.done", lines: 300_000))
    let run = try scene.startRun()
    let socket = try #require(run.control)

    let idleWatcher = try #require(RawClient.connect(socket))
    RawClient.send(idleWatcher, Array(#"{"command":"watch","args":[]}"#.utf8) + [0x0A])
    let validRequests = Fuzz.send(requests: 3000, to: socket, clients: 4)
    scene.folder.touch("go")
    let finished = run.process.wait()
    close(idleWatcher)

    #expect(finished.status == 0, "\(finished.stderr)")
    let log = run.log
    expectStreamContract(log)
    for job in ["first", "second", "third", "noisy"] {
      let moves = log.named("transition", job: job).map { "\($0.string("from")!)>\($0.string("to")!)" }
      #expect(moves == ["pending>ready", "ready>executing", "executing>finished"], "\(job)")
      #expect(log.outcome(of: job) == "succeeded", "\(job)")
    }
    #expect(finished.stdout.contains("noisy | 300000\n"))
    // Malformed requests are no requests: every plain `status` sent is one `control` event
    // (a one-byte mutation may still be a well-formed request, so only these are counted).
    let plainStatus = log.named("control").filter {
      $0.string("command") == "status" && ($0["args"] as? [Any])?.isEmpty == true
    }
    #expect(plainStatus.count == validRequests)
  }
}

/// Random, oversized, truncated and valid requests from several clients at once.
enum Fuzz {
  /// Sends `requests` requests spread over `clients` threads, each waiting for its answer;
  /// returns how many were valid (`status` requests).
  static func send(requests: Int, to socket: String, clients: Int) -> Int {
    let valid = Counter()
    DispatchQueue.concurrentPerform(iterations: clients) { client in
      var generator = SystemRandomNumberGenerator()
      for index in 0..<requests / clients {
        guard let fd = RawClient.connect(socket) else { continue }
        defer { close(fd) }
        let (bytes, isValid, hangsUp) = request(index &+ client, &generator)
        if isValid { valid.add() }
        RawClient.send(fd, bytes)
        if hangsUp { continue }
        shutdown(fd, Int32(SHUT_WR))
        _ = RawClient.receiveAll(fd)
      }
    }
    return valid.value
  }

  private static let seed = Array(#"{"command":"status","args":["a","b\u00e9"]}"#.utf8)

  /// One request of a kind chosen by `index`: its bytes, whether it is a valid request, and
  /// whether the client hangs up right after sending it.
  private static func request(_ index: Int, _ generator: inout SystemRandomNumberGenerator) -> ([UInt8], Bool, Bool) {
    switch index % 8 {
    case 0:
      return (Array(#"{"command":"status","args":[]}"#.utf8) + [0x0A], true, false)
    case 1:  // random bytes, a newline or not
      let count = Int.random(in: 0..<300, using: &generator)
      return ((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }, false, Bool.random())
    case 2:  // one byte of a valid request changed
      var bytes = seed
      bytes[Int.random(in: 0..<bytes.count - 1, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
      return (bytes.filter { $0 != 0x0A } + [0x0A], false, false)
    case 3:  // truncated, then a hang-up
      return (Array(seed.prefix(Int.random(in: 1..<seed.count, using: &generator))), false, true)
    case 4:  // oversized: longer than 64 KiB, with or without a newline
      let count = 65_537 + Int.random(in: 0..<200_000, using: &generator)
      return ([UInt8](repeating: UInt8(ascii: "["), count: count) + (Bool.random() ? [0x0A] : []), false, false)
    case 5:  // connect and leave
      return ([], false, true)
    case 6:  // deep nesting
      return (Array((String(repeating: "[", count: 5000) + "\n").utf8), false, false)
    default:  // the wrong shape
      let shapes = [#"["status"]"#, #"{"command":"status","args":"a"}"#, #"{"command":"reboot"}"#, "null", "\"\""]
      return (Array(shapes[Int.random(in: 0..<shapes.count, using: &generator)].utf8) + [0x0A], false, false)
    }
  }
}

/// A count shared by threads.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  func add() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
