import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// The client side: finding and choosing runs, one request and its answer against a real
/// channel (on a thread of its own, as a run's would be in its process), and the stream.
@Suite struct ControlClientTests {
  @Test func liveRunsAreTheSocketsSomeoneListensOnAndStaleOnesAreRemoved() throws {
    let folder = try makeTemporaryDirectory()
    defer { removeTree(folder) }
    let live = try UnixSocket.listen(at: folder + "/12.sock", backlog: 4).get()
    defer { close(live) }
    let dead = try UnixSocket.listen(at: folder + "/34.sock", backlog: 4).get()
    close(dead)
    _ = FileManager.default.createFile(atPath: folder + "/56.sock", contents: nil)

    #expect(ControlClient.liveRuns(in: folder) == [ControlClient.LiveRun(pid: 12, socket: folder + "/12.sock")])
    #expect(!fileExists(folder + "/34.sock"), "the stale socket is removed")
    #expect(fileExists(folder + "/56.sock"), "a file that is no socket is left alone")
  }

  @Test func aRunIsChosenByPidOrAsTheOnlyOneAndOtherwiseTheErrorListsThePids() throws {
    let folder = try makeTemporaryDirectory()
    defer { removeTree(folder) }
    #expect(failure(ControlClient.choose(.only, in: folder)) == "no run of this user is in progress")
    let first = try UnixSocket.listen(at: folder + "/12.sock", backlog: 4).get()
    defer { close(first) }
    #expect((try? ControlClient.choose(.only, in: folder).get())?.pid == 12)
    let second = try UnixSocket.listen(at: folder + "/7.sock", backlog: 4).get()
    defer { close(second) }

    #expect(
      failure(ControlClient.choose(.only, in: folder))
        == "several runs of this user are in progress (pids 7, 12): choose one with --pid")
    #expect((try? ControlClient.choose(.pid(12), in: folder).get())?.socket == folder + "/12.sock")
    #expect(
      failure(ControlClient.choose(.pid(99), in: folder))
        == "no run with pid 99 is in progress (runs in progress: pids 7, 12)")
  }

  private func failure(_ result: Result<ControlClient.LiveRun, ControlClient.SelectionFailure>) -> String? {
    if case .failure(let failure) = result { return failure.description }
    return nil
  }

  @Test func aRequestGetsItsAnswerAndARefusalItsReason() throws {
    let server = try ThreadedChannel { request in
      switch request.command {
      case "status": ControlAnswer(ok: true, data: Array(#""run":{"pid":5,"manifest":"/m.yaml"},"jobs":[]"#.utf8))
      default: .refused("no job '\(request.args.joined())'")
      }
    }
    let status = try ControlClient.connect(server.path).flatMap { $0.request("status", []) }.get()
    #expect(status.ok)
    #expect(
      String(decoding: status.dataObject.encoded, as: UTF8.self) == #"{"run":{"pid":5,"manifest":"/m.yaml"},"jobs":[]}"#
    )

    let refused = try ControlClient.connect(server.path).flatMap { $0.request("cancel", ["nope"]) }.get()
    #expect(!refused.ok)
    #expect(refused.error == "no job 'nope'")
    #expect(refused.data.isEmpty)
  }

  /// From the description each run writes beside its socket: no run is asked anything, and a
  /// socket without one (another run) is not taken for the manifest's.
  @Test func theManifestChoosesTheRunWhoseDescriptionNamesItAskingNothing() throws {
    let folder = try makeTemporaryDirectory()
    defer { removeTree(folder) }
    let manifest = folder + "/jobs.yaml"
    _ = FileManager.default.createFile(atPath: manifest, contents: Data("jobs: {}".utf8))
    var description = RunDescription(
      pid: getpid(), run: "r", manifest: manifest, started: 0, targets: ["a"], outputMode: .grouped,
      verbosity: .verbose, githubActions: false)
    // The run's variables come back with it, so that a watcher reads the manifest as the run did.
    description.variables = ["MODE": "release", "LEVEL": "a=b"]
    let asked = Counter()
    let server = try ThreadedChannel(folder: folder + "/runs", description: description) { _ in
      asked.add()
      return .refused("asked")
    }
    let other = try UnixSocket.listen(at: folder + "/runs/1.sock", backlog: 4).get()
    defer { close(other) }

    let chosen = try ControlClient.choose(.manifest(manifest), in: folder + "/runs").get()
    #expect(chosen.socket == server.path)
    #expect(chosen.description == description)
    #expect(
      failure(ControlClient.choose(.manifest(folder + "/other.yaml"), in: folder + "/runs"))?.hasPrefix(
        "no run of '\(folder)/other.yaml' is in progress") == true)
    #expect(asked.value == 0)
  }

  @Test func aClosedConnectionOrASilentRunIsAFailureNotAHang() throws {
    let folder = try makeTemporaryDirectory()
    defer { removeTree(folder) }
    // A listener that never accepts: the request is queued, and no answer comes.
    let silent = try UnixSocket.listen(at: folder + "/1.sock", backlog: 4).get()
    // Closed once, here or below: a second close could close a descriptor another test
    // running alongside has just opened under the same number.
    var silentIsOpen = true
    defer { if silentIsOpen { close(silent) } }
    let client = try ControlClient.connect(folder + "/1.sock").get()
    let start = ControlClient.now()
    guard case .failure(.timedOut) = client.request("status", [], deadline: start + 0.2) else {
      Issue.record("a silent run did not time out")
      return
    }
    #expect(ControlClient.now() - start >= 0.2)
    close(silent)
    silentIsOpen = false
    // A process forked meanwhile by another test running alongside (a run's watchdog, say)
    // holds a copy of the listener until it closes what it inherited: the socket is gone once
    // every copy is, which this waits for.
    let deadline = ControlClient.now() + 30
    while true {
      // A connection made meanwhile is closed as it is dropped.
      if case .failure(.gone) = ControlClient.connect(folder + "/1.sock") { return }
      guard ControlClient.now() < deadline else {
        Issue.record("a socket nobody listens on is a run that has gone")
        return
      }
      usleep(10_000)
    }
  }

  @Test func aWatchStreamIsReadLineByLineToItsEnd() throws {
    let server = try ThreadedChannel(
      history: [#"{"t":0,"event":"run-started"}"#, #"{"t":1,"event":"output","job":"a","text":"x\n"}"#],
      finishingAfterARequest: true
    ) { _ in ControlAnswer(ok: true) }
    let client = try ControlClient.connect(server.path).get()
    let answer = try client.request("watch", []).get()
    #expect(answer.ok)
    var lines: [String] = []
    while case .success(let line?) = client.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
    #expect(lines == [#"{"t":0,"event":"run-started"}"#, #"{"t":1,"event":"output","job":"a","text":"x\n"}"#])
  }

  @Test func theEventOfALineIsFoundWithoutParsingIt() {
    #expect(
      ControlCommandLine.eventName(of: Array(#"{"t":1.5,"event":"run-finished","exit_code":0}"#.utf8)) == "run-finished"
    )
    #expect(ControlCommandLine.eventName(of: Array(#"{"event":"watch-dropped"}"#.utf8)) == "watch-dropped")
    #expect(
      ControlCommandLine.eventName(of: Array(#"{"t":2,"event":"output","job":"a","text":"\"event\":\"x\""}"#.utf8))
        == "output")
    #expect(ControlCommandLine.eventName(of: Array("garbage".utf8)) == nil)
  }
}

/// A control channel served on a thread of its own, as a run's is in its own process:
/// `history` recorded before any client comes, every request answered with `answer`, the
/// run finished after the first request when `finishingAfterARequest`, and in any case
/// when the channel is released.
final class ThreadedChannel: @unchecked Sendable {
  let path: String
  private let lock = NSLock()
  private var stopping = false
  private var stopped = false
  private let folder: String
  private let ownsFolder: Bool

  init(
    folder: String? = nil, history: [String] = [], finishingAfterARequest: Bool = false,
    description: RunDescription? = nil, answer: @escaping @Sendable (ControlRequest) -> ControlAnswer
  ) throws {
    ownsFolder = folder == nil
    self.folder = try folder ?? makeTemporaryDirectory() + "/oprun"
    path = ControlFolder.socketPath(in: self.folder, pid: getpid())
    let ready = DispatchSemaphore(value: 0)
    let thread = Thread { [self, folder = self.folder] in
      serve(
        in: folder, history: history, finishingAfterARequest: finishingAfterARequest, description: description,
        answer: answer
      ) {
        ready.signal()
      }
    }
    thread.start()
    ready.wait()
    guard fileExists(path) else { throw ClientError(description: "the channel did not open") }
  }

  private func serve(
    in folder: String, history: [String], finishingAfterARequest: Bool, description: RunDescription?,
    answer: @escaping (ControlRequest) -> ControlAnswer, opened: () -> Void
  ) {
    defer { lock.withLock { stopped = true } }
    let loop = EventLoop()
    var finish: () -> Void = {}
    let result = ControlChannel.open(
      graph: makeGraph(jobs: ["a"]), loop: loop, folder: folder, description: description
    ) { command in
      guard case .control(let request, let reply) = command else { return }
      reply.send(answer(request))
      if finishingAfterARequest { loop.schedule(after: 0) { finish() } }
    }
    opened()
    guard case .success(let channel) = result else { return }
    finish = { channel.finish() }
    for line in history { channel.record(Array((line + "\n").utf8)) }
    func tick() {
      if isStopping { return channel.finish() }
      loop.schedule(after: 0.005) { tick() }
    }
    tick()
    loop.run { channel.isDrained && isStopping }
    channel.close()
  }

  private var isStopping: Bool { lock.withLock { stopping } }

  deinit {
    lock.withLock { stopping = true }
    while !lock.withLock({ stopped }) { usleep(1000) }
    if ownsFolder { removeTree((folder as NSString).deletingLastPathComponent) }
  }
}

/// A count taken on one thread and read on another.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  func add() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
