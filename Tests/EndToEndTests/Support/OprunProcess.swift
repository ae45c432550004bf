import Foundation
import Testing

/// The package's root folder, found from this file's place in it.
let packageRoot: URL = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `oprun` binary `swift build` made (`OPRUN` overrides it).
let oprunBinary: String =
  ProcessInfo.processInfo.environment["OPRUN"]
  ?? packageRoot.appendingPathComponent(".build/debug/oprun").path

/// A scratch folder for one test, removed when the test's value is released, with a state
/// folder of its own beside it (``stateHome``).
final class Scratch: @unchecked Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("oprun-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.removeItem(atPath: stateHome)
  }

  /// The `XDG_STATE_HOME` of what runs in this folder, where oprun keeps the index of runs:
  /// beside the folder (not in it, where a test's patterns would see it), and never the
  /// home folder of whoever runs the tests.
  var stateHome: String { url.path + "-state" }

  func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  /// Writes `text` to `name` in this folder, making the folders it is in, and returns its path.
  @discardableResult
  func write(_ name: String, _ text: String) throws -> String {
    let path = path(name)
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  func read(_ name: String) -> String? { try? String(contentsOfFile: path(name), encoding: .utf8) }

  func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }
}

/// What one finished oprun process left: its status and both outputs.
struct Finished {
  var status: Int32
  /// Set when oprun ended by a signal.
  var signal: Int32?
  var stdout: String
  var stderr: String
}

/// A running `oprun`, whose standard output and error go to files so that nothing blocks.
final class OprunProcess: @unchecked Sendable {
  let process = Process()
  let stdoutPath: String
  let stderrPath: String

  /// Starts `executable` (oprun unless told) with `arguments` in `folder`; its standard output
  /// goes to `standardOutput` when given, else to `NAME.stdout` in the folder (`oprun` unless
  /// told: two at once in one folder need two names), its standard error to `NAME.stderr`.
  init(
    _ arguments: [String], in folder: Scratch, environment: [String: String] = [:], executable: String = oprunBinary,
    standardOutput: FileHandle? = nil, named name: String = "oprun"
  ) throws {
    stdoutPath = folder.path(name + ".stdout")
    stderrPath = folder.path(name + ".stderr")
    _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
    _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = folder.url
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    env["XDG_STATE_HOME"] = folder.stateHome
    env.removeValue(forKey: "GITHUB_ACTIONS")
    for (key, value) in environment { env[key] = value }
    process.environment = env
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = standardOutput ?? FileHandle(forWritingAtPath: stdoutPath)
    process.standardError = FileHandle(forWritingAtPath: stderrPath)
    try process.run()
  }

  /// A test that gave up early must not leave oprun running behind it.
  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  var pid: Int32 { process.processIdentifier }

  func send(_ signal: Int32) { kill(pid, signal) }

  /// What oprun has written to its standard output so far.
  var standardOutput: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

  func wait() -> Finished {
    process.waitUntilExit()
    let out = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    let signalled = process.terminationReason == .uncaughtSignal
    return Finished(
      status: process.terminationStatus, signal: signalled ? process.terminationStatus : nil, stdout: out, stderr: err)
  }
}

/// Runs oprun to its end.
func runOprun(_ arguments: [String], in folder: Scratch, environment: [String: String] = [:]) throws -> Finished {
  try OprunProcess(arguments, in: folder, environment: environment).wait()
}

/// Waits until `condition` holds, checking every 10 ms. The limit only keeps a broken build
/// from hanging the suite; no test relies on it for its outcome.
func waitUntil(_ what: String, limit: Double = 60, _ condition: () -> Bool) throws {
  let deadline = Date().addingTimeInterval(limit)
  while !condition() {
    if Date() > deadline { throw WaitFailure(what: what) }
    usleep(10_000)
  }
}

struct WaitFailure: Error, CustomStringConvertible {
  var what: String
  var description: String { "gave up waiting for \(what)" }
}

/// The helper program `name` built beside the oprun under test, its links resolved; nil when
/// there is none.
func programBesideOprun(_ name: String) -> String? {
  let path = URL(fileURLWithPath: oprunBinary).resolvingSymlinksInPath().deletingLastPathComponent()
    .appendingPathComponent(name).path
  return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}
