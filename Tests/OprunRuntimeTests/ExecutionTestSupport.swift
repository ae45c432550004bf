import Glibc
import OprunCore
import OprunRuntime
import Testing

/// Everything one child did, as the event loop delivered it.
final class ChildRecord {
  var chunks: [(stream: OutputStream, bytes: [UInt8])] = []
  var termination: Termination?
  var outputCallsAfterExit = 0

  func bytes(of stream: OutputStream) -> [UInt8] {
    chunks.filter { $0.stream == stream }.flatMap(\.bytes)
  }

  func text(of stream: OutputStream) -> String { String(decoding: bytes(of: stream), as: UTF8.self) }

  func lines(of stream: OutputStream) -> [String] {
    chunks.filter { $0.stream == stream }.map { String(decoding: $0.bytes, as: UTF8.self) }
  }
}

let testEnvironment = ["PATH=/usr/local/bin:/usr/bin:/bin"]

/// Spawns `command` and watches it on `loop`, recording what it does.
func startChild(
  _ command: String, loop: EventLoop, spawner: Spawner = Spawner(), environment: [String] = testEnvironment,
  directory: String? = nil, qos: QualityOfService = .default, framing: OutputFraming = .lines,
  mergesStandardError: Bool = false, leftovers: LeftoverOutput? = nil
) throws -> (SpawnedProcess, ChildRecord) {
  let request = SpawnRequest(
    command: command, environment: SpawnEnvironment(environment), workingDirectory: directory, qos: qos,
    mergesStandardError: mergesStandardError)
  let process = try spawner.spawn(request).get()
  let record = ChildRecord()
  loop.watchProcess(
    process, output: framing, leftovers: leftovers,
    onOutput: { stream, bytes in
      if record.termination != nil { record.outputCallsAfterExit += 1 }
      record.chunks.append((stream, Array(bytes)))
    },
    onExit: { record.termination = $0 })
  return (process, record)
}

/// Runs `loop` until `condition` holds; a run that would hang is cut off by a
/// watchdog (a guard against a hang, not a timing assertion) and reported.
@discardableResult
func runLoop(
  _ loop: EventLoop, until condition: () -> Bool, sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> Bool {
  var hung = false
  let watchdog = loop.schedule(after: 120) { hung = true }
  let done = loop.run(until: { hung || condition() })
  loop.cancelTimer(watchdog)
  #expect(done && !hung, "the event loop stopped before the condition held", sourceLocation: sourceLocation)
  return done && !hung
}

/// Runs `loop` until `condition` holds, checking it every `interval` too: for
/// conditions no descriptor announces (a file appearing).
@discardableResult
func runLoop(
  _ loop: EventLoop, checkingEvery interval: Double, until condition: @escaping () -> Bool,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> Bool {
  var ticker: TimerID?
  func tick() { ticker = loop.schedule(after: interval) { tick() } }
  tick()
  defer { ticker.map(loop.cancelTimer) }
  return runLoop(loop, until: condition, sourceLocation: sourceLocation)
}

/// Spawns `command`, runs it to its end, and returns the record.
func runChild(
  _ command: String, environment: [String] = testEnvironment, directory: String? = nil,
  framing: OutputFraming = .lines, mergesStandardError: Bool = false
) throws -> ChildRecord {
  let loop = EventLoop()
  let (_, record) = try startChild(
    command, loop: loop, environment: environment, directory: directory, framing: framing,
    mergesStandardError: mergesStandardError)
  runLoop(loop) { record.termination != nil }
  return record
}

/// Fields of /proc/PID/stat, numbered as proc(5) numbers them (1 = pid).
func procStat(_ pid: Int32) -> [Int: String]? {
  guard let text = readTextFile("/proc/\(pid)/stat"),
    let close = text.lastIndex(of: ")")
  else { return nil }
  let rest = text[text.index(after: close)...].split(separator: " ")
  var fields: [Int: String] = [1: String(pid)]
  for (index, field) in rest.enumerated() { fields[index + 3] = String(field) }
  return fields
}

func processGroup(of pid: Int32) -> Int32? { procStat(pid)?[5].flatMap { Int32($0) } }

func procNiceness(of pid: Int32) -> Int32? { procStat(pid)?[19].flatMap { Int32($0) } }

/// A fresh empty directory under /tmp.
func makeTemporaryDirectory() throws -> String {
  var template = Array("/tmp/oprun-execution-XXXXXX".utf8CString)
  let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
  return String(cString: try #require(path))
}

/// Removes a directory made by `makeTemporaryDirectory` and what is in it.
func removeTree(_ path: String) {
  guard path.hasPrefix("/tmp/oprun-execution-"), let directory = opendir(path) else { return }
  while let entry = readdir(directory) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
    if name != "." && name != ".." { unlink(path + "/" + name) }
  }
  closedir(directory)
  rmdir(path)
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// Creates an empty file at `path`: the signal a child waiting on it is looking for.
func touchFile(_ path: String) {
  let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
  if fd >= 0 { close(fd) }
}

func readTextFile(_ path: String) -> String? {
  guard let file = fopen(path, "r") else { return nil }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = fread(&buffer, 1, buffer.count, file)
    if count == 0 { break }
    bytes += buffer[0..<count]
  }
  return String(decoding: bytes, as: UTF8.self)
}

func resolvedPath(_ path: String) -> String? {
  guard let resolved = realpath(path, nil) else { return nil }
  defer { free(resolved) }
  return String(cString: resolved)
}

func openDescriptorCount() -> Int {
  guard let directory = opendir("/proc/self/fd") else { return -1 }
  defer { closedir(directory) }
  var count = 0
  while readdir(directory) != nil { count += 1 }
  return count
}
