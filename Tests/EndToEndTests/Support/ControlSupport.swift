import Foundation
import Testing

/// Runs and `oprun ctl` calls that share a runtime folder of their own (`XDG_RUNTIME_DIR`),
/// so that a test sees its own runs only, whatever else runs on the machine.
final class ControlScene: @unchecked Sendable {
  let folder: Scratch
  /// What `XDG_RUNTIME_DIR` is for every process of the scene.
  let runtime: String
  /// The folder the runs put their sockets in.
  var socketFolder: String { runtime + "/oprun" }
  var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime] }

  init() throws {
    folder = try Scratch()
    runtime = folder.path("runtime")
    try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
  }

  /// Starts oprun on `manifest` (in the scene's folder) with `--events EVENTS` and waits
  /// until it has announced its socket.
  func startRun(manifest: String = "jobs.yaml", events: String = eventsFile, _ extra: [String] = []) throws
    -> StartedRun
  {
    let logs = try Scratch()
    let process = try OprunProcess(
      [folder.path(manifest), "--events", folder.path(events)] + extra, in: logs, environment: environment)
    try waitUntil("\(manifest) announced its socket") {
      EventLog(path: folder.path(events)).named("run-started").first != nil
    }
    let started = try #require(EventLog(path: folder.path(events)).named("run-started").first)
    return StartedRun(process: process, logs: logs, control: started.string("control"), events: folder.path(events))
  }

  /// Runs `body` while a run of `gatedManifest` waits at its gate, then opens the gate and
  /// waits for the run to end, whatever `body` did.
  func whileGatedRunWaits<Result>(_ body: (StartedRun) throws -> Result) throws -> Result {
    try folder.manifest(gatedManifest)
    let run = try startRun()
    defer {
      folder.touch("go")
      _ = run.process.wait()
    }
    return try body(run)
  }

  /// `oprun ctl ARGS`, run to its end; as another user when `asUID` is given.
  func ctl(_ arguments: [String], asUID uid: Int? = nil) throws -> Finished {
    try startCtl(arguments, asUID: uid).wait()
  }

  /// `oprun ctl ARGS`, started; its standard output and error go to files of its own.
  func startCtl(_ arguments: [String], asUID uid: Int? = nil) throws -> StartedCtl {
    let logs = try Scratch()
    guard let uid else {
      return StartedCtl(process: try OprunProcess(["ctl"] + arguments, in: logs, environment: environment), logs: logs)
    }
    chmod(logs.url.path, 0o777)
    let switchUser = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", oprunBinary, "ctl"]
    let process = try OprunProcess(
      switchUser + arguments, in: logs, environment: environment, executable: "/usr/bin/setpriv")
    return StartedCtl(process: process, logs: logs)
  }

  /// The description the run of `pid` keeps beside its socket, parsed; nil when there is none.
  func description(of pid: Int32) -> [String: Any]? {
    guard let data = FileManager.default.contents(atPath: socketFolder + "/\(pid).json") else { return nil }
    return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
  }

  /// The sockets in the runtime folder now.
  var sockets: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: socketFolder)) ?? []).filter { $0.hasSuffix(".sock") }
      .sorted()
  }
}

/// An `oprun ctl` started by a ``ControlScene``, with the folder its outputs go to.
struct StartedCtl {
  let process: OprunProcess
  let logs: Scratch

  func wait() -> Finished { process.wait() }
}

/// A run started by a ``ControlScene``.
struct StartedRun {
  let process: OprunProcess
  /// Where its standard output and error go.
  let logs: Scratch
  /// The socket `run-started` named; nil when the run has no channel.
  let control: String?
  let events: String

  var pid: Int32 { process.pid }
  var log: EventLog { EventLog(path: events) }
}

/// Jobs that wait for the file `go` in the scene's folder, so that a test steers or watches
/// a run that is surely in progress; `noisy` writes `lines` lines meanwhile, then creates the
/// file `noisyMarker` (`noisy.done` in `gatedManifest`), so that a test can tell when they are
/// over. A thousand unless told: a test about answering under a flood of output asks for one
/// (every line goes through the event stream of a debug build: 300,000 cost 16 s of CPU).
func gatedManifestMarkingItsFlood(_ noisyMarker: String, lines: Int = 1_000) -> String {
  """
  max-concurrent: 3
  jobs:
    first: {command: "while [ ! -e go ]; do sleep 0.02; done; echo first done"}
    second: {command: echo second, dependencies: [first]}
    third: {command: "while [ ! -e go ]; do sleep 0.02; done"}
    noisy: {command: "seq 1 \(lines); touch \(noisyMarker); while [ ! -e go ]; do sleep 0.02; done"}
  """
}

let gatedManifest = gatedManifestMarkingItsFlood("noisy.done")

/// A blocking client of a Unix-domain socket with time limits, for the fuzz test.
enum RawClient {
  /// Connects to `path`, with `seconds` as the limit on every later send and receive.
  static func connect(_ path: String, timeLimit seconds: Int = 5) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      return nil
    }
    var limit = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    return fd
  }

  /// Sends what the socket takes of `bytes` within its time limit; false when it stopped early.
  @discardableResult
  static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }

  /// Everything received until the other end closes or the time limit passes.
  static func receiveAll(_ fd: Int32) -> [UInt8] {
    var received: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = block.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return received }
      received += block[0..<count]
    }
  }
}
