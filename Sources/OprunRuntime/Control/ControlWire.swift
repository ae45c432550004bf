import OprunCore

/// The control channel's wire format (SPEC §8): one request line
/// `{"command": NAME, "args": [STRING, ...]}`, one answer line
/// `{"ok": BOOL, "error": TEXT (when false), ...the command's data}`.
public enum ControlWire {
  /// The longest request line, newline not counted.
  public static let maximumRequestLength = 64 << 10

  /// The commands a run answers; anything else is no request.
  public static let commands: Set<String> = [
    "status", "cancel", "cancel-all", "suspend", "resume", "limit", "budget", "priority", "pause", "continue", "watch",
  ]

  /// The command and arguments of a request line (without its newline), or why it is none.
  /// `args` may be left out when there are none; no other member is allowed.
  public static func request(from line: some Collection<UInt8>) -> Result<(command: String, args: [String]), Problem> {
    let limits = JSONLimits(maximumLength: maximumRequestLength, maximumDepth: 3)
    let value: JSONValue
    switch JSONValue.parse(line, limits: limits) {
    case .success(let parsed): value = parsed
    case .failure(let error): return .failure(Problem("the request is not JSON: \(error)"))
    }
    guard let members = value.objectValue else { return .failure(Problem(shape)) }
    var command: String?
    var args: [String] = []
    for (key, member) in members {
      switch key {
      case "command":
        guard let text = member.stringValue else { return .failure(Problem(shape)) }
        command = text
      case "args":
        guard let elements = member.arrayValue else { return .failure(Problem(shape)) }
        let texts = elements.compactMap(\.stringValue)
        guard texts.count == elements.count else { return .failure(Problem(shape)) }
        args = texts
      default:
        return .failure(Problem("unknown member '\(key)' in the request; " + shape))
      }
    }
    guard let command else { return .failure(Problem(shape)) }
    guard commands.contains(command) else { return .failure(Problem("unknown command '\(command)'")) }
    return .success((command, args))
  }

  /// Why a line is no request: the error its answer carries.
  public struct Problem: Error, Sendable, Equatable {
    public var message: String
    init(_ message: String) { self.message = message }
  }

  private static let shape = #"a request is {"command": NAME, "args": [STRING, ...]}"#

  /// The request line for `command` and `args`, newline included.
  public static func requestLine(command: String, args: [String]) -> [UInt8] {
    var bytes = Array(#"{"command":"#.utf8)
    JSONText.appendString(command, to: &bytes)
    bytes.append(contentsOf: #","args":["#.utf8)
    for (index, argument) in args.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      JSONText.appendString(argument, to: &bytes)
    }
    bytes.append(contentsOf: "]}\n".utf8)
    return bytes
  }

  /// The answer line for `answer`, newline included: `ok`, `error` when there is one (a
  /// refusal always has one), then the data members as given.
  public static func answerLine(_ answer: ControlAnswer) -> [UInt8] {
    var bytes = Array((answer.ok ? #"{"ok":true"# : #"{"ok":false"#).utf8)
    if let error = answer.error ?? (answer.ok ? nil : "refused") {
      bytes.append(contentsOf: #","error":"#.utf8)
      JSONText.appendString(error, to: &bytes)
    }
    if !answer.data.isEmpty {
      bytes.append(UInt8(ascii: ","))
      bytes.append(contentsOf: answer.data)
    }
    bytes.append(contentsOf: "}\n".utf8)
    return bytes
  }

  /// The last line a watcher that fell too far behind is sent.
  public static let watchDroppedLine = Array(#"{"event":"watch-dropped"}"#.utf8) + [UInt8(ascii: "\n")]
}
