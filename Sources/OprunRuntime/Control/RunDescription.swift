import Glibc
import OprunCore

/// What a run in progress says of itself in a file beside its socket, `PID.json` (SPEC §8):
/// which manifest it runs, with which targets, and how it shows itself. `oprun ctl` reads it
/// to choose a run by its manifest and to show a watch as the run shows itself, so that one
/// call sends the run one request and no more.
///
/// The run writes it before its socket listens and removes it with the socket: a live socket
/// always has it. It lives in the user's own 0700 folder, as the socket does.
public struct RunDescription: Sendable, Equatable {
  public var pid: Int32
  /// The RUN-ID.
  public var run: String
  /// The manifest's absolute path.
  public var manifest: String
  /// Unix time in seconds.
  public var started: Double
  /// The jobs named on the command line; empty for every job.
  public var targets: [String]
  /// How the run shows itself; colour and the status line are each terminal's own.
  public var outputMode: HumanOptions.OutputMode
  public var verbosity: HumanOptions.Verbosity
  public var githubActions: Bool
  /// The `NAME=value` words of the command line (SPEC §15), which the manifest is read with.
  public var variables: [String: String] = [:]

  public init(
    pid: Int32, run: String, manifest: String, started: Double, targets: [String],
    outputMode: HumanOptions.OutputMode, verbosity: HumanOptions.Verbosity, githubActions: Bool
  ) {
    self.pid = pid
    self.run = run
    self.manifest = manifest
    self.started = started
    self.targets = targets
    self.outputMode = outputMode
    self.verbosity = verbosity
    self.githubActions = githubActions
  }

  /// The file beside the socket at `socket` (`PID.sock` → `PID.json`).
  public static func path(besideSocket socket: String) -> String {
    (socket.hasSuffix(".sock") ? String(socket.dropLast(5)) : socket) + ".json"
  }

  /// The options a watcher shows the run with: the run's own, in its terminal's colours.
  public func humanOptions(color: Bool) -> HumanOptions {
    HumanOptions(outputMode: outputMode, color: color, verbosity: verbosity, githubActions: githubActions)
  }

  /// One JSON object and a newline.
  var encoded: [UInt8] {
    var object = JSONObjectWriter()
    object.field("pid", Int(pid))
    object.field("run", run)
    object.field("manifest", manifest)
    object.field("started", started, fractionDigits: 3)
    object.field("targets", targets)
    object.field("output", outputMode.rawValue)
    object.field("verbosity", Self.words[verbosity.rawValue])
    object.field("github_actions", githubActions)
    if !variables.isEmpty { object.field("variables", variables.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }) }
    object.close(newline: true)
    return object.bytes
  }

  private static let words = ["quiet", "normal", "verbose"]

  init?(_ value: JSONValue) {
    guard let pid = value["pid"]?.intValue.flatMap(Int32.init(exactly:)), let run = value["run"]?.stringValue,
      let manifest = value["manifest"]?.stringValue
    else { return nil }
    self.init(
      pid: pid, run: run, manifest: manifest, started: value["started"]?.doubleValue ?? 0,
      targets: value["targets"]?.arrayValue?.compactMap(\.stringValue) ?? [],
      outputMode: value["output"]?.stringValue.flatMap(HumanOptions.OutputMode.init(rawValue:)) ?? .prefixed,
      verbosity: value["verbosity"]?.stringValue.flatMap(Self.words.firstIndex(of:))
        .flatMap(HumanOptions.Verbosity.init(rawValue:)) ?? .normal,
      githubActions: value["github_actions"]?.boolValue ?? false)
    variables = VariableArgument.split(value["variables"]?.arrayValue?.compactMap(\.stringValue) ?? []).variables
  }

  /// Writes the file at `path`, readable by this user alone, in place of any left there;
  /// nil, or why it could not be written.
  func write(to path: String) -> String? {
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return "cannot write '\(path)': \(errorMessage(errno))" }
    defer { close(fd) }
    let failure = encoded.withUnsafeBytes { writeWhole(fd, $0) }
    guard failure == 0 else {
      unlink(path)
      return "cannot write '\(path)': \(errorMessage(failure))"
    }
    return nil
  }

  /// The description in the file at `path`; nil when there is none, or it cannot be read.
  static func read(at path: String) -> RunDescription? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 4096)
    // Far beyond a description, however many targets: a file that is not one is not read whole.
    while bytes.count < 1 << 20 {
      let count = block.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += block[..<count]
    }
    guard case .success(let value) = JSONValue.parse(bytes) else { return nil }
    return RunDescription(value)
  }
}
